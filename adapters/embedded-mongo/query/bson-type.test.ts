import test from "ava";
import { Binary, BSONRegExp, Code, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from "bson";
import { bsonTypeCode, bsonTypeName, parseTypeSpec } from "./bson-type.js";

test("type names of every BSON value", (t) => {
  const cases: [unknown, string][] = [
    [new Double(1), "double"],
    ["s", "string"],
    [{}, "object"],
    [[], "array"],
    [new Binary(Buffer.from("a")), "binData"],
    [new ObjectId(), "objectId"],
    [true, "bool"],
    [new Date(), "date"],
    [null, "null"],
    [new BSONRegExp("a", ""), "regex"],
    [new Code("x"), "javascript"],
    [new Code("x", { a: 1 }), "javascriptWithScope"],
    [new Int32(1), "int"],
    [new Timestamp({ t: 1, i: 1 }), "timestamp"],
    [Long.fromNumber(1), "long"],
    [Decimal128.fromString("1"), "decimal"],
    [new MinKey(), "minKey"],
    [new MaxKey(), "maxKey"],
    [undefined, "missing"],
    [1, "int"],
    [1.5, "double"],
  ];
  for (const [v, name] of cases) t.is(bsonTypeName(v), name);
  t.is(bsonTypeCode(new Int32(1)), 16);
});

test("$type specs: aliases, numeric codes, number, arrays", (t) => {
  t.true(parseTypeSpec("number").matches(Decimal128.fromString("1")));
  t.false(parseTypeSpec("number").matches("1"));
  t.true(parseTypeSpec(new Int32(2)).matches("x"));
  t.true(parseTypeSpec(new Double(16)).matches(new Int32(1)));
  t.true(parseTypeSpec(["string", "long"]).matches(Long.fromNumber(1)));
  t.is((t.throws(() => parseTypeSpec("nope")) as unknown as { code: number }).code, 2);
  t.is((t.throws(() => parseTypeSpec(new Int32(99))) as unknown as { code: number }).code, 2);
});
