import test from "ava";
import { Decimal128, Double, Int32, Long, ObjectId, Timestamp } from "bson";
import { compileFilter } from "./filter.js";
import { compileUpdate } from "./update.js";
import type { UpdateOptions, UpdateResult } from "./update.js";
import { upsertSeed } from "./upsert-seed.js";
import type { Document } from "./types.js";
import { thrownCode } from "../test-support/thrown-code.js";

function apply(doc: Document, update: Document | Document[], options: UpdateOptions = {}, positional?: number): UpdateResult {
  return compileUpdate(update, options).apply(doc, { isInsert: false, positional, now: new Date(1000) });
}

function typed(v: unknown): string {
  return `${(v as { _bsontype?: string })._bsontype}(${String(v)})`;
}

test("$set creates paths, never mutates the input, and reports changes", (t) => {
  const doc = { _id: 1, a: { b: 1 }, keep: { x: [1] } };
  const r = apply(doc, { $set: { "a.c": 2, "d.e": 3 } });
  t.deepEqual(r.doc, { _id: 1, a: { b: 1, c: 2 }, keep: { x: [1] }, d: { e: 3 } });
  t.deepEqual(doc, { _id: 1, a: { b: 1 }, keep: { x: [1] } });
  t.is(r.doc.keep, doc.keep, "untouched subtrees are shared");
  t.true(r.modified);
  t.deepEqual(r.updateDescription, { updatedFields: { "a.c": 2, d: { e: 3 } }, removedFields: [], truncatedArrays: [] });
});

test("$set of an identical value is a no-op, but a different numeric type is a change", (t) => {
  const doc = { _id: 1, n: new Int32(1) };
  const same = apply(doc, { $set: { n: new Int32(1) } });
  t.false(same.modified);
  t.is(same.doc, doc);
  t.true(apply(doc, { $set: { n: new Double(1) } }).modified);
});

test("new fields are added in lexicographic order", (t) => {
  t.deepEqual(Object.keys(apply({ _id: 1 }, { $set: { b: 1, a: 1 } }).doc), ["_id", "a", "b"]);
});

test("paths through arrays and scalars", (t) => {
  t.deepEqual(apply({ a: [1, 2] }, { $set: { "a.4": 5 } }).doc, { a: [1, 2, null, null, 5] });
  t.deepEqual(apply({ a: [{ b: 1 }] }, { $set: { "a.0.b": 2 } }).doc, { a: [{ b: 2 }] });
  t.is(thrownCode(() => apply({ a: 5 }, { $set: { "a.b": 1 } })), 28);
  t.is(thrownCode(() => apply({ a: null }, { $set: { "a.b": 1 } })), 28);
  t.is(thrownCode(() => apply({ a: [1] }, { $set: { "a.b": 1 } })), 28);
  t.deepEqual(apply({}, { $set: { "a.0": 1 } }).doc, { a: { "0": 1 } }, "a missing parent becomes a document");
});

test("$unset removes fields, nulls array elements, ignores missing paths", (t) => {
  const r = apply({ a: 1, b: [1, 2], c: { d: 1 } }, { $unset: { a: "", "b.0": 1, "c.x": 1, "z.y": 1 } });
  t.deepEqual(r.doc, { b: [null, 2], c: { d: 1 } });
  t.deepEqual(r.updateDescription.removedFields, ["a"]);
  t.deepEqual(r.updateDescription.updatedFields, { "b.0": null });
});

test("$inc and $mul follow numeric promotion", (t) => {
  t.is(typed(apply({ n: new Int32(2147483647) }, { $inc: { n: new Int32(1) } }).doc.n), "Long(2147483648)");
  t.is(typed(apply({ n: new Int32(1) }, { $inc: { n: new Double(0.5) } }).doc.n), "Double(1.5)");
  t.is(typed(apply({ n: Decimal128.fromString("0.1") }, { $inc: { n: Decimal128.fromString("0.2") } }).doc.n), "Decimal128(0.3)");
  t.is(typed(apply({}, { $inc: { n: Long.fromNumber(5) } }).doc.n), "Long(5)");
  t.is(typed(apply({}, { $mul: { n: new Double(5) } }).doc.n), "Double(0)", "$mul on a missing field sets zero of the multiplier's type");
  t.is(typed(apply({ n: new Int32(65536) }, { $mul: { n: new Int32(65536) } }).doc.n), "Long(4294967296)");
  t.is(thrownCode(() => apply({ n: Long.fromString("9223372036854775807") }, { $inc: { n: new Int32(1) } })), 2);
  t.is(thrownCode(() => apply({ n: "x" }, { $inc: { n: 1 } })), 14);
  t.is(thrownCode(() => apply({ n: 1 }, { $inc: { n: "x" } })), 14);
  t.false(apply({ n: new Int32(1) }, { $inc: { n: new Int32(0) } }).modified);
});

test("$min, $max, $currentDate, $rename, $setOnInsert", (t) => {
  t.deepEqual(apply({ a: 5, b: 5 }, { $min: { a: 3, c: 1 }, $max: { b: 3 } }).doc, { a: 3, b: 5, c: 1 });
  t.deepEqual(apply({ a: "x" }, { $max: { a: 1 } }).doc, { a: "x" }, "BSON order: strings are above numbers");
  const d = apply({}, { $currentDate: { d: true, ts: { $type: "timestamp" } } }).doc;
  t.deepEqual(d.d, new Date(1000));
  t.true(d.ts instanceof Timestamp);
  t.deepEqual(apply({ a: { b: 1 }, c: 2 }, { $rename: { "a.b": "x.y", c: "d" } }).doc, { a: {}, x: { y: 1 }, d: 2 });
  t.is(thrownCode(() => apply({}, { $rename: { a: "a.b" } })), 2);
  t.is(thrownCode(() => apply({ a: [{ b: 1 }] }, { $rename: { "a.b": "c" } })), 2);
  const u = compileUpdate({ $set: { a: 1 }, $setOnInsert: { created: true } });
  t.deepEqual(u.apply({ _id: 1 }, { isInsert: false }).doc, { _id: 1, a: 1 });
  t.deepEqual(u.apply({ _id: 1 }, { isInsert: true }).doc, { _id: 1, a: 1, created: true });
});

test("$push with $each, $position, $sort and $slice", (t) => {
  t.deepEqual(apply({}, { $push: { a: 1 } }).doc, { a: [1] });
  t.deepEqual(apply({ a: [1] }, { $push: { a: [2] } }).doc, { a: [1, [2]] });
  t.deepEqual(apply({ a: [1, 2] }, { $push: { a: { $each: [3, 4], $position: 1 } } }).doc, { a: [1, 3, 4, 2] });
  t.deepEqual(apply({ a: [1, 2] }, { $push: { a: { $each: [3], $position: -1 } } }).doc, { a: [1, 3, 2] });
  t.deepEqual(apply({ a: [5, 1] }, { $push: { a: { $each: [3], $sort: -1, $slice: 2 } } }).doc, { a: [5, 3] });
  t.deepEqual(apply({ a: [5, 1] }, { $push: { a: { $each: [3], $slice: -2 } } }).doc, { a: [1, 3] });
  const scores = apply({ s: [{ v: 2 }, { v: 9 }] }, { $push: { s: { $each: [{ v: 5 }], $sort: { v: -1 }, $slice: 2 } } });
  t.deepEqual(scores.doc, { s: [{ v: 9 }, { v: 5 }] });
  t.deepEqual(apply({ a: [1] }, { $push: { a: { $each: [] , $slice: 0 } } }).doc, { a: [] });
  t.is(thrownCode(() => apply({ a: 1 }, { $push: { a: 2 } })), 2);
  t.is(thrownCode(() => apply({}, { $push: { a: { $each: 1 } } })), 2);
  t.is(thrownCode(() => apply({}, { $push: { a: { $each: [1], $bogus: 1 } } })), 2);
  const pushed = apply({ a: [1, 2] }, { $push: { a: 3 } });
  t.deepEqual(pushed.updateDescription.updatedFields, { "a.2": 3 });
});

test("$addToSet, $pop, $pull, $pullAll", (t) => {
  t.deepEqual(apply({ a: [1, 2] }, { $addToSet: { a: new Double(2) } }).doc, { a: [1, 2] }, "numeric equality across types");
  t.false(apply({ a: [1, 2] }, { $addToSet: { a: 2 } }).modified);
  t.deepEqual(apply({ a: [1] }, { $addToSet: { a: { $each: [1, 3, 3] } } }).doc, { a: [1, 3] });
  t.deepEqual(apply({ a: [1, 2, 3] }, { $pop: { a: 1 } }).doc, { a: [1, 2] });
  t.deepEqual(apply({ a: [1, 2, 3] }, { $pop: { a: -1 } }).doc, { a: [2, 3] });
  t.is(thrownCode(() => apply({ a: [1] }, { $pop: { a: 2 } })), 9);
  t.deepEqual(apply({ a: [1, 5, 8] }, { $pull: { a: { $gte: 5 } } }).doc, { a: [1] });
  t.deepEqual(apply({ a: ["ab", "cd"] }, { $pull: { a: /^a/ } }).doc, { a: ["cd"] });
  t.deepEqual(apply({ a: [[1, 6], [2], 3] }, { $pull: { a: { $gte: 5 } } }).doc, { a: [[2], 3] }, "conditions traverse nested arrays");
  t.deepEqual(apply({ a: [[1], 1] }, { $pull: { a: 1 } }).doc, { a: [[1]] }, "plain values are exact equality");
  const results = { r: [{ item: "A", score: 5 }, { item: "B", score: 8, note: "x" }] };
  t.deepEqual(apply(results, { $pull: { r: { score: 8, item: "B" } } }).doc, { r: [{ item: "A", score: 5 }] }, "document conditions are queries");
  t.deepEqual(apply({ a: [0, 5, 5, 1] }, { $pullAll: { a: [5, 1] } }).doc, { a: [0] });
  const pulled = apply({ a: [1, 2, 3] }, { $pull: { a: 2 } });
  t.deepEqual(pulled.updateDescription, { updatedFields: { "a.1": 3 }, removedFields: [], truncatedArrays: [{ field: "a", newSize: 2 }] });
});

test("$bit", (t) => {
  t.is(typed(apply({ n: new Int32(13) }, { $bit: { n: { and: new Int32(10) } } }).doc.n), "Int32(8)");
  t.is(typed(apply({ n: new Int32(3) }, { $bit: { n: { or: Long.fromNumber(4) } } }).doc.n), "Long(7)");
  t.is(thrownCode(() => apply({ n: 1 }, { $bit: { n: { and: new Double(1.5) } } })), 2);
});

test("positional $ uses the position recorded by the query", (t) => {
  const doc = { _id: 1, grades: [80, 85, 90] };
  const m = compileFilter({ grades: 85 }).matchDetails(doc);
  t.deepEqual(apply(doc, { $set: { "grades.$": 82 } }, {}, m.positional).doc, { _id: 1, grades: [80, 82, 90] });
  const docs = { items: [{ sku: "a", q: 1 }, { sku: "b", q: 1 }] };
  const pos = compileFilter({ "items.sku": "b" }).matchDetails(docs).positional;
  const incd = apply(docs, { $inc: { "items.$.q": new Int32(2) } }, {}, pos).doc as { items: { q: unknown }[] };
  t.deepEqual(incd.items.map((i) => typed(i.q)), ["undefined(1)", "Int32(3)"]);
  t.is(thrownCode(() => apply(doc, { $set: { "grades.$": 1 } })), 2, "no recorded position");
});

test("$[] and $[identifier] with arrayFilters", (t) => {
  t.deepEqual((apply({ a: [1, 2] }, { $inc: { "a.$[]": 10 } }).doc.a as unknown[]).map(typed), ["Int32(11)", "Int32(12)"]);
  const doc = { grades: [{ g: 80, m: 1 }, { g: 95, m: 2 }, { g: 91, m: 3 }] };
  const r = apply(doc, { $set: { "grades.$[hi].top": true } }, { arrayFilters: [{ "hi.g": { $gte: 90 } }] });
  t.deepEqual(r.doc.grades, [{ g: 80, m: 1 }, { g: 95, m: 2, top: true }, { g: 91, m: 3, top: true }]);
  const nested = apply({ a: [[1, 5], [7]] }, { $set: { "a.$[].$[x]": 0 } }, { arrayFilters: [{ x: { $gt: 4 } }] });
  t.deepEqual(nested.doc, { a: [[1, 0], [0]] });
  t.is(thrownCode(() => apply({ a: [1] }, { $set: { "a.$[x]": 1 } })), 2, "missing array filter");
  t.is(thrownCode(() => apply({ a: [1] }, { $set: { "a.$[]": 1 } }, { arrayFilters: [{ y: 1 }] })), 9, "unused array filter");
  t.is(thrownCode(() => apply({}, { $set: { "a.$[]": 1 } })), 2, "the array must exist");
  t.is(thrownCode(() => apply({ a: [1] }, { $set: { "a.$[X]": 1 } }, { arrayFilters: [{ X: 1 }] })), 2);
});

test("conflicts, _id immutability, bad modifiers and field names", (t) => {
  t.is(thrownCode(() => compileUpdate({ $set: { a: 1 }, $inc: { "a.b": 1 } })), 40);
  t.is(thrownCode(() => compileUpdate({ $set: { "a.b": 1 }, $unset: { "a.b": 1 } })), 40);
  t.is(thrownCode(() => apply({ _id: 1 }, { $set: { _id: 2 } })), 66);
  t.false(apply({ _id: 1 }, { $set: { _id: 1 } }).modified);
  t.is(thrownCode(() => apply({ _id: 1 }, { $unset: { _id: 1 } })), 66);
  t.is(thrownCode(() => apply({ _id: { a: 1 } }, { $set: { "_id.a": 2 } })), 66);
  t.is(thrownCode(() => compileUpdate({ $foo: { a: 1 } })), 9);
  t.is(thrownCode(() => compileUpdate({ $set: 5 })), 9);
  t.is(thrownCode(() => compileUpdate({ $set: { "a..b": 1 } })), 56);
  t.is(thrownCode(() => compileUpdate({ $set: { $x: 1 } })), 52);
  t.is(thrownCode(() => apply({}, { $set: { _id: [1] } })), 53);
});

test("replacement documents keep _id", (t) => {
  const id = new ObjectId();
  const r = apply({ _id: id, a: 1, b: 2 }, { b: 3, c: 4 });
  t.deepEqual(r.doc, { _id: id, b: 3, c: 4 });
  t.deepEqual(Object.keys(r.doc), ["_id", "b", "c"]);
  t.deepEqual(r.updateDescription.removedFields, ["a"]);
  t.is(compileUpdate({ b: 1 }).kind, "replacement");
  t.deepEqual(apply({ _id: id, a: 1 }, { a: 2, _id: new ObjectId(id.toHexString()) }).doc, { _id: id, a: 2 });
  t.is(thrownCode(() => apply({ _id: 1 }, { _id: 2 })), 66);
  t.is(thrownCode(() => compileUpdate({ a: 1, $set: { b: 1 } })), 52);
  t.deepEqual(apply({ _id: 1, a: 1 }, {}).doc, { _id: 1 }, "an empty update replaces with just the _id");
});

test("upsertSeed takes equality conditions only", (t) => {
  t.deepEqual(upsertSeed({ _id: 7, "a.b": 1, n: { $gt: 5 }, $and: [{ c: { $eq: "x" } }], s: /re/, one: { $in: [2] } }), {
    _id: 7,
    a: { b: 1 },
    c: "x",
    one: 2,
  });
  t.deepEqual(upsertSeed({ $or: [{ a: 1 }, { b: 2 }] }), {});
  t.deepEqual(upsertSeed({ $or: [{ a: 1 }] }), { a: 1 });
  t.deepEqual(Object.keys(upsertSeed({ x: 1, _id: 2 })), ["_id", "x"]);
  t.is(thrownCode(() => upsertSeed({ a: 1, "a.b": 2 })), 54);
  const u = compileUpdate({ $set: { n: 1 }, $setOnInsert: { created: true } });
  t.deepEqual(u.apply(upsertSeed({ k: "x" }), { isInsert: true }).doc, { k: "x", n: 1, created: true });
});

test("pipeline updates", (t) => {
  const doc = { _id: 1, a: new Int32(2), b: new Int32(3), drop: true, sub: { x: 1 } };
  const r = apply(doc, [{ $set: { total: { $add: ["$a", "$b"] }, "sub.y": "$a" } }, { $unset: "drop" }]);
  t.deepEqual(r.doc, { _id: 1, a: new Int32(2), b: new Int32(3), sub: { x: 1, y: new Int32(2) }, total: new Int32(5) });
  t.deepEqual(r.updateDescription.removedFields, ["drop"]);
  t.is(compileUpdate([{ $set: { a: 1 } }]).kind, "pipeline");
  t.deepEqual(apply(doc, [{ $replaceWith: { a: "$a" } }]).doc, { _id: 1, a: new Int32(2) }, "_id survives a stage that drops it");
  t.is(thrownCode(() => apply(doc, [{ $set: { _id: 5 } }])), 66);
  t.is(thrownCode(() => compileUpdate([{ $group: { _id: null } }])), 72);
  t.deepEqual(apply({ _id: 1 }, [{ $set: { now: "$$NOW" } }]).doc, { _id: 1, now: new Date(1000) });
});
