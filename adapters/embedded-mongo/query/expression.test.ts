import test from "ava";
import { BSONRegExp, Decimal128, Double, Int32, Long, ObjectId } from "bson";
import { compileExpression } from "./expression.js";
import { thrownCode } from "../test-support/thrown-code.js";

const ev = (e: unknown, doc: unknown = {}, variables?: Record<string, unknown>) => compileExpression(e)(doc, { variables, now: new Date(0) });
const typed = (v: unknown) => `${(v as { _bsontype?: string })._bsontype ?? typeof v}(${String(v)})`;

test("field paths map over arrays; numeric components are field names", (t) => {
  const doc = { a: [{ b: 1 }, { c: 2 }, { b: [3] }, 5, [{ b: 4 }]], o: { "0": "x" }, arr: ["p", "q"] };
  t.deepEqual(ev("$a.b", doc), [1, [3], [4]]);
  t.is(ev("$o.0", doc), "x");
  t.deepEqual(ev("$arr.0", doc), [], "no array indexing in aggregation paths");
  t.is(ev("$missing", doc), undefined);
  t.is(ev("$$ROOT", doc), doc);
  t.deepEqual(ev("$$NOW"), new Date(0));
  t.is(ev("$$x.y", {}, { x: { y: 7 } }), 7);
  t.is(thrownCode(() => ev("$$nope")), 17276);
});

test("arithmetic keeps MongoDB's numeric types", (t) => {
  t.is(typed(ev({ $add: [new Int32(2147483647), new Int32(1)] })), "Long(2147483648)");
  t.is(typed(ev({ $add: [new Int32(1), new Double(1)] })), "Double(2)");
  t.is(typed(ev({ $add: [Long.fromString("9007199254740993"), new Int32(1)] })), "Long(9007199254740994)");
  t.is(typed(ev({ $add: [Decimal128.fromString("0.1"), Decimal128.fromString("0.2")] })), "Decimal128(0.3)");
  t.is(typed(ev({ $subtract: [new Int32(5), new Int32(7)] })), "Int32(-2)");
  t.is(typed(ev({ $multiply: [new Int32(65536), new Int32(65536)] })), "Long(4294967296)");
  t.is(typed(ev({ $divide: [new Int32(6), new Int32(3)] })), "Double(2)");
  t.is(typed(ev({ $mod: [new Int32(7), new Int32(3)] })), "Int32(1)");
  t.is(typed(ev({ $mod: [Decimal128.fromString("7.5"), new Int32(2)] })), "Decimal128(1.5)");
  t.is(typed(ev({ $abs: new Int32(-3) })), "Int32(3)");
  t.is(typed(ev({ $pow: [new Int32(2), new Int32(10)] })), "Int32(1024)");
  t.is(typed(ev({ $pow: [new Int32(2), new Int32(40)] })), "Long(1099511627776)");
  t.is(typed(ev({ $round: [new Double(2.5), new Int32(0)] })), "Double(2)", "round half to even");
  t.is(typed(ev({ $round: [new Int32(1250), new Int32(-2)] })), "Int32(1200)");
  t.is(typed(ev({ $trunc: [Decimal128.fromString("-1.29"), new Int32(1)] })), "Decimal128(-1.2)");
  t.is(typed(ev({ $floor: new Double(-1.5) })), "Double(-2)");
  t.is(typed(ev({ $ceil: new Int32(3) })), "Int32(3)");
  t.is(ev({ $add: [new Int32(1), null] }), null);
  t.deepEqual(ev({ $add: [new Date(1000), new Int32(500)] }), new Date(1500));
  t.is(typed(ev({ $subtract: [new Date(1000), new Date(400)] })), "Long(600)");
  t.is(thrownCode(() => ev({ $add: ["a", 1] })), 16554);
  t.is(thrownCode(() => ev({ $divide: [1, 0] })), 16608);
});

test("operators that cannot be exact on Decimal128 refuse instead of rounding", (t) => {
  t.is(thrownCode(() => ev({ $sqrt: Decimal128.fromString("2") })), 2);
  t.is(thrownCode(() => ev({ $sin: Decimal128.fromString("1") })), 2);
  t.is(thrownCode(() => ev({ $sin: Long.fromString("9007199254740993") })), 2);
});

test("comparisons use BSON order, missing below null, and the collation", (t) => {
  t.true(ev({ $eq: [new Int32(1), Decimal128.fromString("1.0")] }) as boolean);
  t.false(ev({ $eq: ["$nope", null] }) as boolean);
  t.true(ev({ $lt: ["$nope", null] }) as boolean);
  t.true(ev({ $gt: ["a", new Int32(5)] }) as boolean, "strings sort above numbers");
  t.is(typed(ev({ $cmp: [new Int32(1), new Int32(2)] })), "Int32(-1)");
  t.true(compileExpression({ $eq: ["A", "a"] }, { collation: { locale: "en", strength: 2 } })({}) as boolean);
  t.true(ev({ $gt: [Long.fromString("9007199254740993"), new Double(9007199254740992)] }) as boolean);
});

test("conditionals and booleans", (t) => {
  t.is(ev({ $cond: [{ $gte: ["$n", new Int32(5)] }, "big", "small"] }, { n: new Int32(7) }), "big");
  t.is(ev({ $cond: { if: new Int32(0), then: "t", else: "e" } }), "e");
  t.is(ev({ $ifNull: ["$a", "$b", "d"] }, { b: null }), "d");
  t.is(ev({ $switch: { branches: [{ case: false, then: 1 }], default: "x" } }), "x");
  t.is(thrownCode(() => ev({ $switch: { branches: [{ case: false, then: 1 }] } })), 40066);
  t.true(ev({ $and: [1, "", []] }) as boolean, "\"\" and [] are truthy");
  t.false(ev({ $or: [0, null, new Double(0)] }) as boolean);
  t.true(ev({ $not: [null] }) as boolean);
});

test("array operators", (t) => {
  t.deepEqual(ev({ $map: { input: "$xs", as: "x", in: { $multiply: ["$$x", new Int32(2)] } } }, { xs: [new Int32(1), new Int32(2)] }), [new Int32(2), new Int32(4)]);
  t.deepEqual(ev({ $filter: { input: "$xs", cond: { $gt: ["$$this", new Int32(1)] } } }, { xs: [new Int32(1), new Int32(2)] }), [new Int32(2)]);
  t.is(typed(ev({ $reduce: { input: [new Int32(1), new Int32(2)], initialValue: new Int32(0), in: { $add: ["$$value", "$$this"] } } })), "Int32(3)");
  t.is(ev({ $arrayElemAt: [["a", "b"], new Int32(-1)] }), "b");
  t.is(ev({ $arrayElemAt: [["a"], new Int32(5)] }), undefined);
  t.is(typed(ev({ $size: [[1, 2]] })), "Int32(2)");
  t.is(thrownCode(() => ev({ $size: "$nope" })), 17124);
  t.true(ev({ $in: [new Double(2), [new Int32(1), new Int32(2)]] }) as boolean);
  t.deepEqual(ev({ $concatArrays: [[1], [2, 3]] }), [1, 2, 3]);
  t.deepEqual(ev({ $slice: [[1, 2, 3, 4], new Int32(-2)] }), [3, 4]);
  t.deepEqual(ev({ $range: [new Int32(0), new Int32(5), new Int32(2)] }), [new Int32(0), new Int32(2), new Int32(4)]);
  t.deepEqual(ev({ $arrayToObject: [[["a", 1]]] }), { a: 1 });
  t.deepEqual(ev({ $objectToArray: { a: 1 } }), [{ k: "a", v: 1 }]);
  t.deepEqual(ev({ $sortArray: { input: [3, 1, 2], sortBy: new Int32(-1) } }), [3, 2, 1]);
  t.deepEqual(ev({ $setUnion: [[new Int32(1)], [new Double(1), new Int32(2)]] }), [new Int32(1), new Int32(2)]);
  t.true(ev({ $setEquals: [[1, 2], [2, 1, 1]] }) as boolean);
  t.deepEqual(ev({ $zip: { inputs: [[1, 2], ["a"]] } }), [[1, "a"]]);
  t.deepEqual(ev({ $firstN: { n: new Int32(2), input: [1, 2, 3] } }), [1, 2]);
});

test("accumulator expressions: $sum, $avg, $min, $max", (t) => {
  t.is(typed(ev({ $sum: "$xs" }, { xs: [new Int32(2147483647), new Int32(1), "x"] })), "Long(2147483648)");
  t.is(typed(ev({ $sum: [] })), "Int32(0)");
  t.is(typed(ev({ $avg: [new Int32(1), new Int32(2)] })), "Double(1.5)");
  t.is(typed(ev({ $avg: [Decimal128.fromString("1"), new Int32(2)] })), "Decimal128(1.5)");
  t.is(ev({ $avg: ["x"] }), null);
  t.is(typed(ev({ $max: [new Int32(1), new Double(2.5), null] })), "Double(2.5)");
  t.is(ev({ $min: [null, "$nope"] }), null);
});

test("objects, types and conversions", (t) => {
  t.deepEqual(ev({ $mergeObjects: [{ a: 1 }, null, { b: 2, a: 3 }] }), { a: 3, b: 2 });
  t.is(ev({ $getField: "a.b" }, { "a.b": 5 }), 5);
  t.deepEqual(ev({ $setField: { field: "x", input: { a: 1 }, value: 2 } }), { a: 1, x: 2 });
  t.is(ev({ $type: "$n" }, { n: new Int32(1) }), "int");
  t.is(ev({ $type: "$nope" }), "missing");
  t.is(typed(ev({ $toInt: "42" })), "Int32(42)");
  t.is(typed(ev({ $toLong: new Double(3.9) })), "Long(3)");
  t.is(typed(ev({ $toDouble: new Int32(3) })), "Double(3)");
  t.is(typed(ev({ $toDecimal: new Double(2.5) })), "Decimal128(2.50000000000000)");
  t.is(ev({ $toString: new Double(1.5) }), "1.5");
  t.is(ev({ $toString: new Date(0) }), "1970-01-01T00:00:00.000Z");
  t.true(ev({ $toBool: "" }) as boolean);
  t.deepEqual(ev({ $toObjectId: "000000000000000000000001" }), new ObjectId("000000000000000000000001"));
  t.is(ev({ $convert: { input: "x", to: "int", onError: "bad" } }), "bad");
  t.is(ev({ $convert: { input: null, to: "int", onNull: "none" } }), "none");
  t.is(thrownCode(() => ev({ $toInt: "x" })), 241);
  t.is(thrownCode(() => ev({ $toInt: new Double(1e20) })), 241);
});

test("strings: native and delegated to mingo with typed results", (t) => {
  t.is(ev({ $concat: ["a", "$b"] }, { b: "c" }), "ac");
  t.is(ev({ $concat: ["a", "$nope"] }), null);
  t.is(thrownCode(() => ev({ $concat: ["a", new Int32(1)] })), 16702);
  t.is(ev({ $toUpper: "straße" }), "STRAßE", "only ASCII letters change");
  t.is(ev({ $toLower: new Int32(5) }), "5");
  t.is(typed(ev({ $strLenCP: "héllo" })), "Int32(5)");
  t.is(ev({ $substrCP: ["héllo", new Int32(1), new Int32(2)] }), "él");
  t.deepEqual(ev({ $split: ["a,b", ","] }), ["a", "b"]);
  t.is(typed(ev({ $indexOfCP: ["héllo", "l"] })), "Int32(2)");
  t.true(ev({ $regexMatch: { input: "ABC", regex: new BSONRegExp("^a", "i") } }) as boolean);
  t.deepEqual(ev({ $regexFind: { input: "ab12", regex: "(\\d)(\\d)" } }), { match: "12", idx: new Int32(2), captures: ["1", "2"] });
});

test("date operators give MongoDB's result types", (t) => {
  const d = new Date("2020-05-17T10:20:30.400Z");
  t.is(typed(ev({ $year: "$d" }, { d })), "Int32(2020)");
  t.is(ev({ $dateToString: { format: "%Y-%m-%d", date: "$d" } }, { d }), "2020-05-17");
  t.is(typed(ev({ $dateDiff: { startDate: new Date(0), endDate: new Date(3 * 86400000), unit: "day" } })), "Long(3)");
  t.is(typed(ev({ $sin: new Int32(0) })), "Double(0)");
});

test("variables: $let and $$REMOVE", (t) => {
  t.is(typed(ev({ $let: { vars: { x: new Int32(5) }, in: { $multiply: ["$$x", new Int32(2)] } } })), "Int32(10)");
  t.deepEqual(ev({ a: "$$REMOVE", b: new Int32(1) }), { b: new Int32(1) });
  t.is(thrownCode(() => ev({ $let: { vars: { X: 1 }, in: 1 } })), 16867);
  t.is(thrownCode(() => ev({ $bogus: 1 })), 168);
  t.is(thrownCode(() => ev({ $function: { body: "", args: [], lang: "js" } })), 2);
});
