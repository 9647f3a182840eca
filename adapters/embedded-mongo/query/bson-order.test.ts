import test from "ava";
import { Binary, BSONRegExp, BSONSymbol, Code, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from "bson";
import { bsonEquals, compareBson, equalityKey } from "./bson-order.js";

// The manual's comparison/sort order, lowest to highest (bson-type-comparison-order).
test("values of different types follow the BSON comparison order", (t) => {
  const ordered: unknown[] = [
    new MinKey(),
    null,
    new Int32(5),
    "a",
    { a: 1 },
    [1],
    new Binary(Buffer.from("x")),
    new ObjectId("000000000000000000000001"),
    false,
    new Date(0),
    new Timestamp({ t: 1, i: 1 }),
    new BSONRegExp("a", "i"),
    new Code("x"),
    new MaxKey(),
  ];
  for (let i = 0; i < ordered.length; i++) {
    for (let j = 0; j < ordered.length; j++) {
      t.is(compareBson(ordered[i], ordered[j]), Math.sign(i - j), `${i} vs ${j}`);
    }
  }
});

test("null and missing compare equal; symbols compare as strings", (t) => {
  t.is(compareBson(undefined, null), 0);
  t.is(compareBson(new BSONSymbol("b"), "a"), 1);
  t.true(bsonEquals(new BSONSymbol("a"), "a"));
});

test("numbers compare by value across types", (t) => {
  t.is(compareBson(new Int32(1), new Double(1)), 0);
  t.is(compareBson(Long.fromNumber(1), Decimal128.fromString("1.0")), 0);
  t.is(compareBson(new Int32(2), new Double(1.5)), 1);
  t.is(compareBson(Decimal128.fromString("0.1"), new Double(0.1)), -1, "0.1 as a double is slightly above 0.1");
  t.true(bsonEquals(new Double(0.5), Decimal128.fromString("0.50")));
});

test("Long above 2^53 compares exactly, also against doubles", (t) => {
  const big = Long.fromString("9007199254740993"); // 2^53 + 1, not representable as a double
  t.is(compareBson(big, new Double(9007199254740992)), 1);
  t.is(compareBson(big, Long.fromString("9007199254740992")), 1);
  t.is(compareBson(Long.fromString("9223372036854775807"), new Double(9223372036854775807)), -1);
  t.false(bsonEquals(big, new Double(9007199254740992)));
});

test("Decimal128 compares without float rounding", (t) => {
  const a = Decimal128.fromString("1.0000000000000000000000000000001");
  t.is(compareBson(a, new Int32(1)), 1);
  t.is(compareBson(Decimal128.fromString("-Infinity"), new Double(-1e308)), -1);
  t.is(compareBson(Decimal128.fromString("Infinity"), new Double(Infinity)), 0);
});

test("NaN sorts below all numbers and equals NaN", (t) => {
  t.is(compareBson(new Double(NaN), new Double(-Infinity)), -1);
  t.is(compareBson(new Double(NaN), Decimal128.fromString("NaN")), 0);
  t.is(compareBson(new Double(NaN), null), 1);
});

test("objects compare field by field: type, then name, then value", (t) => {
  t.is(compareBson({ a: 1 }, { a: 1, b: 1 }), -1);
  t.is(compareBson({ a: 1 }, { b: 1 }), -1);
  t.is(compareBson({ b: 1 }, { a: "x" }), -1, "the type of the value is compared before the name");
  t.false(bsonEquals({ a: 1, b: 2 }, { b: 2, a: 1 }), "field order matters");
  t.true(bsonEquals({ a: new Int32(1) }, { a: new Double(1) }));
});

test("arrays compare element by element, shorter first", (t) => {
  t.is(compareBson([1, 2], [1, 3]), -1);
  t.is(compareBson([1], [1, 0]), -1);
  t.is(compareBson([[1]], [1]), 1);
});

test("binary orders by length, then subtype, then bytes; ObjectIds by bytes", (t) => {
  t.is(compareBson(new Binary(Buffer.from([9])), new Binary(Buffer.from([1, 1]))), -1);
  t.is(compareBson(new Binary(Buffer.from([1]), 0), new Binary(Buffer.from([1]), 4)), -1);
  t.is(compareBson(new ObjectId("ff0000000000000000000000"), new ObjectId("0f0000000000000000000000")), 1);
  t.is(compareBson(new ObjectId("000000000000000000000002"), new ObjectId("000000000000000000000010")), -1);
});

test("strings use code point order without a collation", (t) => {
  t.is(compareBson("B", "a"), -1);
  t.is(compareBson("\uffff", "\u{10000}"), -1, "a supplementary character is above U+FFFF");
});

test("collation strength 1 ignores case and accents, strength 2 only case", (t) => {
  const s1 = { locale: "en", strength: 1 };
  const s2 = { locale: "fr", strength: 2 };
  t.is(compareBson("cafe", "CAFÉ", s1), 0);
  t.is(compareBson("cafe", "CAFE", s2), 0);
  t.not(compareBson("cafe", "café", s2), 0);
  t.true(bsonEquals({ a: ["X"] }, { a: ["x"] }, s2), "nested strings use the collation too");
  t.is(compareBson("B", "a", { locale: "simple" }), -1);
});

test("equalityKey: equal values share a key, unequal values do not", (t) => {
  const same: unknown[][] = [
    [new Int32(1), new Double(1), Long.fromNumber(1), Decimal128.fromString("1.00"), 1],
    [new Double(0.5), Decimal128.fromString("0.5")],
    [Long.fromString("9007199254740993"), Decimal128.fromString("9007199254740993")],
    [null, undefined],
    ["abc", new BSONSymbol("abc")],
    [new Double(NaN), Decimal128.fromString("NaN")],
    [{ a: new Int32(1), b: ["x"] }, { a: new Double(1), b: ["x"] }],
    [new Double(0), new Double(-0), Decimal128.fromString("-0")],
  ];
  for (const group of same) {
    for (const v of group) t.is(equalityKey(v), equalityKey(group[0]), String(v));
  }
  const distinct: unknown[] = [
    "1",
    1,
    1.5,
    Long.fromString("9007199254740993"),
    new Double(9007199254740992),
    Decimal128.fromString("0.1"),
    new Double(0.1),
    { a: 1, b: 2 },
    { b: 2, a: 1 },
    [1, 2],
    [[1, 2]],
    ['a","b'],
    ["a", "b"],
    new ObjectId("000000000000000000000001"),
    "o000000000000000000000001",
    true,
    new Date(1),
    new Timestamp({ t: 0, i: 1 }),
    new BSONRegExp("a", "i"),
    new Binary(Buffer.from("a"), 0),
    new Binary(Buffer.from("a"), 4),
    new MinKey(),
    new MaxKey(),
    null,
    '"x"',
    new BSONSymbol("x"),
  ];
  const keys = distinct.map(equalityKey);
  t.is(new Set(keys).size, keys.length);
});
