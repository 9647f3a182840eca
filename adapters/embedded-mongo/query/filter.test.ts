import test from "ava";
import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId } from "bson";
import { compileFilter } from "./filter.js";
import type { Document } from "./types.js";
import { thrownCode } from "../test-support/thrown-code.js";

function m(filter: Document, doc: Document, collation?: { locale: string; strength?: number }): boolean {
  return compileFilter(filter, { collation }).matches(doc);
}

test("implicit equality, including array-contains", (t) => {
  t.true(m({ a: new Int32(1) }, { a: new Double(1) }));
  t.true(m({ a: 1 }, { a: [3, 1] }));
  t.true(m({ a: [1, 2] }, { a: [1, 2] }), "whole-array equality");
  t.false(m({ a: [2, 1] }, { a: [1, 2] }), "order matters");
  t.true(m({ a: [1, 2] }, { a: [[1, 2], 3] }), "an element equal to the array");
  t.false(m({ a: 1 }, { a: [[1]] }), "only one level of arrays is expanded");
  t.true(m({ a: { b: 1 } }, { a: { b: new Int32(1) } }));
  t.false(m({ a: { b: 1 } }, { a: { b: 1, c: 2 } }), "embedded documents match exactly");
  t.false(m({ a: "1" }, { a: 1 }));
});

test("null matches null and missing but not empty arrays", (t) => {
  t.true(m({ a: null }, {}));
  t.true(m({ a: null }, { a: null }));
  t.true(m({ a: null }, { a: [1, null] }));
  t.false(m({ a: null }, { a: [] }));
  t.false(m({ a: null }, { a: 0 }));
  t.true(m({ "a.b": null }, { a: 5 }), "a scalar in the middle of the path counts as missing");
  t.true(m({ "a.b": null }, { a: [{ b: 1 }, { c: 1 }] }), "an element without the field");
  t.false(m({ "a.b": null }, { a: [1, 2] }), "scalar elements are not traversed");
  t.false(m({ "a.0": null }, { a: [] }), "an out-of-range index on an array yields nothing");
});

test("$ne and $nin are negations over the whole path", (t) => {
  t.false(m({ a: { $ne: 1 } }, { a: [1, 2] }), "some element equals 1");
  t.true(m({ a: { $ne: 1 } }, { a: [2, 3] }));
  t.true(m({ a: { $ne: 1 } }, {}));
  t.false(m({ a: { $ne: null } }, {}));
  t.true(m({ a: { $ne: null } }, { a: [] }));
  t.false(m({ a: { $nin: [1, 5] } }, { a: [5] }));
  t.true(m({ a: { $nin: [1, 5] } }, { b: 1 }));
});

test("$in with null, regexes and arrays", (t) => {
  t.true(m({ a: { $in: [null] } }, {}));
  t.true(m({ a: { $in: [null, 2] } }, { a: new Int32(2) }));
  t.false(m({ a: { $in: [] } }, { a: 1 }));
  t.true(m({ a: { $in: [/^ab/, 3] } }, { a: ["xyz", "abc"] }));
  t.true(m({ a: { $in: [new BSONRegExp("^AB", "i")] } }, { a: "abc" }));
  t.true(m({ a: { $in: [[1, 2]] } }, { a: [1, 2] }));
  t.true(m({ a: { $in: [Long.fromNumber(3)] } }, { a: new Double(3) }));
  t.is(thrownCode(() => compileFilter({ a: { $in: 1 } })), 2);
  t.is(thrownCode(() => compileFilter({ a: { $in: [{ $gt: 1 }] } })), 2);
});

test("comparisons respect type brackets", (t) => {
  t.true(m({ a: { $gt: 5 } }, { a: new Double(5.5) }));
  t.false(m({ a: { $gt: 5 } }, { a: "6" }), "strings are never greater than numbers in a query");
  t.false(m({ a: { $lt: "b" } }, { a: 1 }));
  t.true(m({ a: { $gt: 5 } }, { a: [1, 10] }), "any element");
  t.true(m({ a: { $gte: null } }, {}), "null bounds match null and missing");
  t.false(m({ a: { $gt: null } }, { a: null }));
  t.true(m({ a: { $gt: new MinKey() } }, { a: "x" }));
  t.true(m({ a: { $lt: new MaxKey() } }, { a: { b: 1 } }));
  t.true(m({ a: { $gt: new Date(0) } }, { a: new Date(5) }));
  t.false(m({ a: { $gt: new Date(0) } }, { a: 5 }));
  t.true(m({ a: { $gt: [1] } }, { a: [2] }), "array operands compare against the whole array");
  t.true(m({ a: { $gte: 1, $lt: 3 } }, { a: new Int32(2) }));
  t.true(m({ a: { $gt: 1, $lt: 3 } }, { a: [0, 5] }), "each bound may be met by a different element");
  t.is(thrownCode(() => compileFilter({ a: { $gt: /x/ } })), 2);
});

test("Long beyond 2^53 and Decimal128 compare exactly", (t) => {
  const big = Long.fromString("9007199254740993");
  t.true(m({ a: { $gt: new Double(9007199254740992) } }, { a: big }));
  t.false(m({ a: new Double(9007199254740992) }, { a: big }));
  t.true(m({ a: big }, { a: Decimal128.fromString("9007199254740993") }));
  t.true(m({ a: Decimal128.fromString("1.10") }, { a: new Double(1.1) }) === false, "1.1 as a double is not exactly 1.10");
  t.true(m({ a: Decimal128.fromString("2.50") }, { a: new Double(2.5) }));
  t.true(m({ a: { $lt: Decimal128.fromString("0.30000000000000001") } }, { a: Decimal128.fromString("0.3") }));
});

test("NaN equals NaN but never satisfies $gt/$lt", (t) => {
  t.true(m({ a: new Double(NaN) }, { a: Decimal128.fromString("NaN") }));
  t.false(m({ a: { $lt: 0 } }, { a: new Double(NaN) }));
  t.false(m({ a: { $gt: new Double(NaN) } }, { a: 1 }));
  t.true(m({ a: { $gte: new Double(NaN) } }, { a: new Double(NaN) }));
});

test("dotted paths through arrays and numeric indexes", (t) => {
  const doc = { a: [{ b: 1 }, { b: [2, 3] }, 7], c: { d: [{ e: 5 }] } };
  t.true(m({ "a.b": 3 }, doc));
  t.true(m({ "a.b": [2, 3] }, doc));
  t.true(m({ "a.1.b": 2 }, doc));
  t.true(m({ "a.2": 7 }, doc));
  t.false(m({ "a.0.b": 2 }, doc));
  t.true(m({ "c.d.e": 5 }, doc));
  t.true(m({ "c.d.0.e": 5 }, doc));
  t.true(m({ "a.0": { b: 1 } }, doc));
  t.false(m({ "a.b": 1 }, { a: [[{ b: 1 }]] }), "nested arrays are not traversed by field names");
  t.true(m({ "a.0.b": 1 }, { a: [[{ b: 1 }]] }), "but an index addresses the nested array");
  t.true(m({ "a.0": 1 }, { a: { "0": 1 } }), "a numeric component is a field name on documents");
  t.true(m({ "a.1": 9 }, { a: [{ "1": 9 }] }), "and on embedded documents inside arrays");
  t.false(m({ "a.0": 1 }, { a: [[1]] }), "an element reached by index is not expanded");
  t.true(m({ "a.0": [1] }, { a: [[1]] }));
});

test("$exists", (t) => {
  t.true(m({ a: { $exists: true } }, { a: null }));
  t.false(m({ a: { $exists: true } }, {}));
  t.true(m({ a: { $exists: false } }, {}));
  t.true(m({ a: { $exists: 0 } }, { b: 1 }));
  t.true(m({ "a.b": { $exists: true } }, { a: [{ c: 1 }, { b: 2 }] }));
  t.true(m({ "a.b": { $exists: false } }, { a: [] }));
  t.true(m({ a: { $exists: true } }, { a: [] }));
});

test("$type including arrays, numbers and numeric codes", (t) => {
  t.true(m({ a: { $type: "number" } }, { a: Long.fromNumber(1) }));
  t.true(m({ a: { $type: "number" } }, { a: ["x", Decimal128.fromString("1")] }));
  t.false(m({ a: { $type: "number" } }, { a: "1" }));
  t.true(m({ a: { $type: "array" } }, { a: [] }));
  t.true(m({ a: { $type: "array" } }, { a: [[1]] }));
  t.true(m({ a: { $type: "int" } }, { a: new Int32(1) }));
  t.false(m({ a: { $type: "int" } }, { a: new Double(1) }));
  t.true(m({ a: { $type: new Int32(1) } }, { a: new Double(1) }));
  t.true(m({ a: { $type: ["string", "null"] } }, { a: null }));
  t.false(m({ a: { $type: "null" } }, {}), "missing is not null for $type");
  t.is(thrownCode(() => compileFilter({ a: { $type: "bogus" } })), 2);
});

test("$regex, $options and regex literals", (t) => {
  t.true(m({ a: /^ab/ }, { a: "abc" }));
  t.true(m({ a: new BSONRegExp("^AB", "i") }, { a: "abc" }));
  t.true(m({ a: { $regex: "^ab", $options: "i" } }, { a: ["x", "ABc"] }));
  t.true(m({ a: { $regex: "a b # comment", $options: "x" } }, { a: "ab" }));
  t.true(m({ a: { $regex: "^a.c$", $options: "s" } }, { a: "a\nc" }));
  t.true(m({ a: { $regex: "^b", $options: "m" } }, { a: "a\nb" }));
  t.false(m({ a: /1/ }, { a: 1 }), "regexes only match strings");
  t.true(m({ a: { $eq: new BSONRegExp("x", "") } }, { a: new BSONRegExp("x", "") }), "$eq with a regex is regex equality");
  t.true(m({ a: { $not: /^a/ } }, { a: "ba" }));
  t.true(m({ a: { $not: { $regex: "^a" } } }, {}));
  t.is(thrownCode(() => compileFilter({ a: { $options: "i" } })), 2);
  t.is(thrownCode(() => compileFilter({ a: { $regex: new BSONRegExp("x", "i"), $options: "m" } })), 51075);
  t.is(thrownCode(() => compileFilter({ a: { $regex: "(" } })), 51091);
});

test("$mod truncates and rejects a zero divisor", (t) => {
  t.true(m({ a: { $mod: [4, 0] } }, { a: new Int32(8) }));
  t.true(m({ a: { $mod: [4, 1] } }, { a: new Double(5.9) }));
  t.true(m({ a: { $mod: [4, -1] } }, { a: new Int32(-5) }), "the remainder has the sign of the dividend");
  t.false(m({ a: { $mod: [4, 0] } }, { a: "8" }));
  t.false(m({ a: { $mod: [4, 0] } }, { a: new Double(NaN) }));
  t.is(thrownCode(() => compileFilter({ a: { $mod: [0, 0] } })), 2);
  t.is(thrownCode(() => compileFilter({ a: { $mod: [1] } })), 2);
});

test("$all, including $elemMatch members", (t) => {
  t.true(m({ a: { $all: [1, 2] } }, { a: [2, 3, 1] }));
  t.false(m({ a: { $all: [1, 4] } }, { a: [2, 3, 1] }));
  t.true(m({ a: { $all: [[1, 2]] } }, { a: [[1, 2], 3] }));
  t.true(m({ a: { $all: [[1, 2]] } }, { a: [1, 2] }));
  t.false(m({ a: { $all: [] } }, { a: [1] }));
  t.true(m({ a: { $all: [1] } }, { a: 1 }), "a scalar equal to the only member");
  const doc = { a: [{ x: 1, y: 2 }, { x: 3, y: 4 }] };
  t.true(m({ a: { $all: [{ $elemMatch: { x: 1 } }, { $elemMatch: { y: 4 } }] } }, doc));
  t.false(m({ a: { $all: [{ $elemMatch: { x: 1, y: 4 } }] } }, doc));
  t.is(thrownCode(() => compileFilter({ a: { $all: [{ $elemMatch: { x: 1 } }, 5] } })), 2);
});

test("$elemMatch differs from implicit array matching", (t) => {
  const doc = { a: [1, 10] };
  t.true(m({ a: { $gt: 5, $lt: 8 } }, doc), "implicit: each condition may use a different element");
  t.false(m({ a: { $elemMatch: { $gt: 5, $lt: 8 } } }, doc), "$elemMatch: one element must satisfy all");
  t.true(m({ a: { $elemMatch: { $gt: 5, $lt: 11 } } }, doc));
  const docs = { a: [{ b: 1, c: 2 }, { b: 2, c: 1 }] };
  t.true(m({ "a.b": 1, "a.c": 1 }, docs));
  t.false(m({ a: { $elemMatch: { b: 1, c: 1 } } }, docs));
  t.true(m({ a: { $elemMatch: { $or: [{ b: 5 }, { c: 1 }] } } }, docs), "$or makes it the object form");
  t.false(m({ a: { $elemMatch: { $eq: 1 } } }, { a: [[1]] }), "value form does not expand nested arrays");
  t.true(m({ a: { $elemMatch: { $eq: [1] } } }, { a: [[1]] }));
  t.false(m({ a: { $elemMatch: { $gt: 0 } } }, { a: 5 }), "requires an array");
  t.true(m({ a: { $elemMatch: { $not: { $gt: 5 } } } }, doc));
  t.true(m({ "x.a": { $elemMatch: { b: 2 } } }, { x: [{ a: [{ b: 2 }] }] }));
});

test("$size", (t) => {
  t.true(m({ a: { $size: 2 } }, { a: [1, [2, 3]] }));
  t.false(m({ a: { $size: 2 } }, { a: [[1, 2]] }), "the leaf array is not expanded");
  t.true(m({ "a.b": { $size: 1 } }, { a: [{ b: [1] }, { b: 2 }] }));
  t.false(m({ a: { $size: 0 } }, {}));
  t.is(thrownCode(() => compileFilter({ a: { $size: 1.5 } })), 2);
});

test("bit tests on numbers and BinData", (t) => {
  t.true(m({ a: { $bitsAllSet: [1, 5] } }, { a: new Int32(34) }));
  t.true(m({ a: { $bitsAllSet: 34 } }, { a: new Int32(35) }));
  t.false(m({ a: { $bitsAllSet: 35 } }, { a: new Int32(34) }));
  t.true(m({ a: { $bitsAnySet: [0, 1] } }, { a: new Int32(2) }));
  t.true(m({ a: { $bitsAllClear: [0, 2] } }, { a: new Int32(2) }));
  t.true(m({ a: { $bitsAnyClear: [1, 2] } }, { a: new Int32(2) }));
  t.true(m({ a: { $bitsAllSet: [63] } }, { a: new Int32(-1) }), "negative numbers are sign-extended");
  t.false(m({ a: { $bitsAllSet: [0] } }, { a: new Double(1.5) }), "non-integral doubles never match");
  t.true(m({ a: { $bitsAllSet: [0, 9] } }, { a: new Binary(Buffer.from([0x01, 0x02])) }));
  t.true(m({ a: { $bitsAnySet: new Binary(Buffer.from([0x02])) } }, { a: new Int32(3) }));
});

test("logical operators", (t) => {
  t.true(m({ $or: [{ a: 1 }, { b: 2 }] }, { b: 2 }));
  t.false(m({ $and: [{ a: 1 }, { b: 2 }] }, { b: 2 }));
  t.true(m({ $nor: [{ a: 1 }, { b: 2 }] }, { c: 1 }));
  t.true(m({ a: { $not: { $gt: 5 } } }, { a: "x" }), "$not also matches values of other types");
  t.true(m({ a: { $not: { $gt: 5 } } }, {}));
  t.true(m({ $comment: "hi", a: 1 }, { a: 1 }));
  t.true(m({ $alwaysTrue: 1 }, {}));
  t.is(thrownCode(() => compileFilter({ $or: [] })), 2);
  t.is(thrownCode(() => compileFilter({ $and: [1] })), 2);
  t.is(thrownCode(() => compileFilter({ a: { $not: 5 } })), 2);
  t.is(thrownCode(() => compileFilter({ a: { $not: {} } })), 2);
});

test("unknown and unsupported operators", (t) => {
  t.is(thrownCode(() => compileFilter({ $foo: 1 })), 2);
  t.regex(String(t.throws(() => compileFilter({ $foo: 1 }))?.message), /unknown top level operator: \$foo/);
  t.regex(String(t.throws(() => compileFilter({ a: { $foo: 1 } }))?.message), /unknown operator: \$foo/);
  t.is(thrownCode(() => compileFilter({ $where: "true" })), 2);
  t.is(thrownCode(() => compileFilter({ $text: { $search: "coffee" } })), 2, "not 27: creating a text index would not help");
  t.regex(String(t.throws(() => compileFilter({ $text: { $search: "coffee" } }))?.message), /^\$text is not supported by the embedded engine \(text indexes are stored but not used\)/);
  t.is(thrownCode(() => compileFilter({ a: { $near: [0, 0] } })), 2);
  t.true(m({ a: { $ref: "c", $id: 1 } }, { a: { $ref: "c", $id: 1 } }), "DBRef-shaped objects are values, not operators");
});

test("collation applies to equality, ranges and $in", (t) => {
  const ci = { locale: "en", strength: 2 };
  t.true(m({ a: "ABC" }, { a: "abc" }, ci));
  t.false(m({ a: "ABC" }, { a: "abc" }));
  t.true(m({ a: { $in: ["X", "Y"] } }, { a: ["y"] }, ci));
  t.true(m({ a: { $gte: "b" } }, { a: "B" }, ci));
  t.true(m({ a: "resume" }, { a: "Résumé" }, { locale: "fr", strength: 1 }));
  t.false(m({ a: "resume" }, { a: "Résumé" }, ci));
  t.true(m({ a: { b: "X" } }, { a: { b: "x" } }, ci), "strings inside embedded documents too");
});

test("positional details report the matching array index", (t) => {
  const f = (filter: Document, doc: Document) => compileFilter(filter).matchDetails(doc);
  t.deepEqual(f({ a: 3 }, { a: [1, 2, 3] }), { matched: true, positional: 2 });
  t.deepEqual(f({ "a.b": 5 }, { a: [{ b: 1 }, { b: [4, 5] }] }), { matched: true, positional: 1 }, "outermost array");
  t.deepEqual(f({ a: { $elemMatch: { $gt: 1 } } }, { a: [1, 2, 3] }), { matched: true, positional: 1 });
  t.deepEqual(f({ a: 1 }, { a: 1 }), { matched: true });
  t.deepEqual(f({ a: [1, 2] }, { a: [1, 2] }), { matched: true }, "whole-array match records no position");
  t.deepEqual(f({ x: 1, a: { $gte: 2 } }, { x: 1, a: [1, 5] }), { matched: true, positional: 1 });
  t.deepEqual(f({ a: 9 }, { a: [1] }), { matched: false });
});

test("$jsonSchema subset", (t) => {
  const schema = {
    $jsonSchema: {
      bsonType: "object",
      required: ["name"],
      properties: {
        name: { bsonType: "string", minLength: 2 },
        age: { bsonType: ["int", "long"], minimum: 0, maximum: 150 },
        tags: { bsonType: "array", items: { bsonType: "string" }, uniqueItems: true },
        kind: { enum: ["a", "b"] },
      },
      additionalProperties: true,
    },
  };
  t.true(m(schema, { name: "ab", age: new Int32(3), tags: ["x"] }));
  t.false(m(schema, { age: new Int32(3) }));
  t.false(m(schema, { name: "ab", age: new Double(3) }));
  t.false(m(schema, { name: "ab", age: new Int32(-1) }));
  t.false(m(schema, { name: "ab", tags: ["x", "x"] }));
  t.false(m(schema, { name: "ab", kind: "c" }));
  t.false(m({ $jsonSchema: { properties: { a: { type: "number" } }, additionalProperties: false } }, { a: 1, b: 2 }));
  t.is(thrownCode(() => compileFilter({ $jsonSchema: { frobnicate: 1 } })), 9);
});

test("ObjectId and Date equality", (t) => {
  const id = new ObjectId();
  t.true(m({ _id: new ObjectId(id.toHexString()) }, { _id: id }));
  t.true(m({ _id: { $in: [new ObjectId(), id] } }, { _id: id }));
  t.true(m({ d: new Date(5) }, { d: new Date(5) }));
});

test("$expr evaluates aggregation expressions, with variables per call", (t) => {
  t.true(m({ $expr: { $gt: ["$spent", "$budget"] } }, { spent: new Int32(12), budget: new Int32(10) }));
  t.false(m({ $expr: { $gt: ["$spent", "$budget"] } }, { spent: new Int32(2), budget: new Int32(10) }));
  t.true(m({ $expr: { $eq: [{ $type: "$n" }, "double"] } }, { n: new Double(1) }));
  const withVars = compileFilter({ $expr: { $eq: ["$k", "$$want"] } });
  t.true(withVars.matchesWith({ k: "a" }, { variables: { want: "a" } }));
  t.false(withVars.matchesWith({ k: "a" }, { variables: { want: "b" } }));
  t.is(thrownCode(() => compileFilter({ a: { $elemMatch: { $expr: { $eq: [1, 1] } } } })), 2, "$expr only at the top level");
});
