import test from "ava";
import { Int32 } from "bson";
import { compileFilter } from "./filter.js";
import { compileProjection } from "./projection.js";
import type { Document } from "./types.js";
import { thrownCode } from "../test-support/thrown-code.js";

const p = (spec: Document, doc: Document, positional?: number) => compileProjection(spec).apply(doc, { positional });

const doc = { _id: 1, a: 1, b: { c: 2, d: 3 }, arr: [{ x: 1, y: 2 }, { x: 3 }, 7], tags: ["a", "b", "c"] };

test("inclusion keeps _id unless excluded, in document order", (t) => {
  t.deepEqual(p({ b: 1, a: 1 }, doc), { _id: 1, a: 1, b: { c: 2, d: 3 } });
  t.deepEqual(p({ a: 1, _id: 0 }, doc), { a: 1 });
  t.deepEqual(p({ _id: 1 }, doc), { _id: 1 });
  t.deepEqual(p({ nope: 1 }, doc), { _id: 1 });
});

test("exclusion drops the listed fields", (t) => {
  t.deepEqual(p({ b: 0, arr: 0, tags: 0 }, doc), { _id: 1, a: 1 });
  t.deepEqual(p({ _id: 0 }, { _id: 1, a: 1 }), { a: 1 });
  t.deepEqual(p({ "b.c": 0, arr: 0, tags: 0 }, doc), { _id: 1, a: 1, b: { d: 3 } });
});

test("dotted paths and nested specs reach into documents and arrays of documents", (t) => {
  t.deepEqual(p({ "b.c": 1 }, doc), { _id: 1, b: { c: 2 } });
  t.deepEqual(p({ b: { d: 1 } }, doc), { _id: 1, b: { d: 3 } });
  t.deepEqual(p({ "arr.x": 1, _id: 0 }, doc), { arr: [{ x: 1 }, { x: 3 }] }, "scalars in the array are dropped");
  t.deepEqual(p({ "arr.y": 0, b: 0, tags: 0 }, doc), { _id: 1, a: 1, arr: [{ x: 1 }, { x: 3 }, 7] });
});

test("mixing inclusion and exclusion, and path collisions, are errors", (t) => {
  t.is(thrownCode(() => compileProjection({ a: 1, b: 0 })), 31254);
  t.is(thrownCode(() => compileProjection({ a: 0, b: 1 })), 31253);
  t.is(thrownCode(() => compileProjection({ a: 1, "a.b": 1 })), 31250);
  t.is(thrownCode(() => compileProjection({ $a: 1 })), 16410);
  t.is(thrownCode(() => compileProjection({ a: { $meta: "textScore" } })), 2);
});

test("$slice, $elemMatch and positional .$", (t) => {
  t.deepEqual(p({ tags: { $slice: 2 } }, doc), doc.tags && { ...doc, tags: ["a", "b"] }, "$slice alone keeps the other fields");
  t.deepEqual(p({ tags: { $slice: -1 }, a: 1 }, doc), { _id: 1, a: 1, tags: ["c"] });
  t.deepEqual(p({ tags: { $slice: [1, 1] }, _id: 0, a: 1 }, doc), { a: 1, tags: ["b"] });
  t.deepEqual(p({ arr: { $elemMatch: { x: { $gt: 1 } } } }, doc), { _id: 1, arr: [{ x: 3 }] });
  t.deepEqual(p({ arr: { $elemMatch: { x: 99 } } }, doc), { _id: 1 });
  const pos = compileFilter({ tags: "b" }).matchDetails(doc).positional;
  t.deepEqual(p({ "tags.$": 1 }, doc, pos), { _id: 1, tags: ["b"] });
  t.is(thrownCode(() => p({ "tags.$": 1 }, doc)), 51246);
  t.is(thrownCode(() => compileProjection({ "a.$": 1, "b.$": 1 })), 31276);
});

test("computed fields are aggregation expressions", (t) => {
  t.deepEqual(p({ total: { $add: ["$a", new Int32(1)] }, _id: 0 }, doc), { total: new Int32(2) });
  t.deepEqual(p({ c: "$b.c", lit: { $literal: 1 } }, doc), { _id: 1, c: 2, lit: 1 });
  t.deepEqual(p({ "n.v": "$a" }, doc), { _id: 1, n: { v: 1 } });
});

test("aggregate mode treats $-objects as expressions and rejects empty specs", (t) => {
  const agg = compileProjection({ s: { $slice: ["$tags", new Int32(1)] } }, { mode: "aggregate" });
  t.deepEqual(agg.apply(doc), { _id: 1, s: ["a"] });
  t.is(thrownCode(() => compileProjection({}, { mode: "aggregate" })), 51272);
});
