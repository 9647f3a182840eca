import test from "ava";
import { Decimal128, Double, Int32, Long, MinKey } from "bson";
import { compileSort } from "./sort.js";
import type { Document } from "./types.js";

const ids = (docs: Document[]) => docs.map((d) => d._id);

test("ascending and descending across types, missing as null", (t) => {
  const docs: Document[] = [
    { _id: 1, a: "x" },
    { _id: 2, a: new Int32(5) },
    { _id: 3 },
    { _id: 4, a: null },
    { _id: 5, a: new Double(1.5) },
    { _id: 6, a: { b: 1 } },
  ];
  t.deepEqual(ids(compileSort({ a: 1 }).sort(docs)), [3, 4, 5, 2, 1, 6]);
  t.deepEqual(ids(compileSort({ a: -1 }).sort(docs)), [6, 1, 2, 5, 3, 4]);
});

// DOCS-2760: [] < missing < [0, 1] (key 0) < 1 == [1] ascending; descending uses the max element.
test("arrays sort by their min element ascending and max descending; [] lowest", (t) => {
  const docs: Document[] = [{ _id: "missing" }, { _id: "one", a: 1 }, { _id: "empty", a: [] }, { _id: "[1]", a: [1] }, { _id: "[0,1]", a: [0, 1] }];
  t.deepEqual(ids(compileSort({ a: 1 }).sort(docs)), ["empty", "missing", "[0,1]", "one", "[1]"]);
  t.deepEqual(ids(compileSort({ a: -1 }).sort(docs)), ["one", "[1]", "[0,1]", "missing", "empty"]);
  t.deepEqual(ids(compileSort({ a: 1 }).sort([{ _id: 1, a: [3, 9] }, { _id: 2, a: [5] }])), [1, 2]);
  t.deepEqual(ids(compileSort({ a: -1 }).sort([{ _id: 1, a: [3, 9] }, { _id: 2, a: [5] }])), [1, 2]);
  t.is(compileSort({ a: 1 })({ a: [] }, { a: new MinKey() }), 1, "only MinKey is below an empty array");
});

test("dotted paths collect values through arrays of documents", (t) => {
  const docs: Document[] = [
    { _id: 1, a: [{ b: 5 }, { b: 1 }] },
    { _id: 2, a: { b: 3 } },
    { _id: 3, a: [{ b: [7, 0.5] }] },
    { _id: 4, a: [{ c: 1 }, { b: 2 }] },
  ];
  t.deepEqual(ids(compileSort({ "a.b": 1 }).sort(docs)), [4, 3, 1, 2], "doc 4 has a missing b, which is null");
  t.deepEqual(ids(compileSort({ "a.b": -1 }).sort(docs)), [3, 1, 2, 4]);
  t.deepEqual(ids(compileSort({ "a.1.b": 1 }).sort(docs.slice(0, 2))), [2, 1]);
});

test("numbers compare exactly across types", (t) => {
  const docs: Document[] = [
    { _id: 1, n: Long.fromString("9007199254740993") },
    { _id: 2, n: new Double(9007199254740992) },
    { _id: 3, n: Decimal128.fromString("9007199254740992.5") },
    { _id: 4, n: new Double(NaN) },
  ];
  t.deepEqual(ids(compileSort({ n: 1 }).sort(docs)), [4, 2, 3, 1]);
});

test("compound sorts, stability and collation", (t) => {
  const docs: Document[] = [
    { _id: 1, g: "b", n: 2 },
    { _id: 2, g: "A", n: 1 },
    { _id: 3, g: "a", n: 3 },
    { _id: 4, g: "B", n: 1 },
  ];
  t.deepEqual(ids(compileSort({ g: 1, n: -1 }).sort(docs)), [2, 4, 3, 1], "binary: uppercase first");
  t.deepEqual(ids(compileSort({ g: 1, n: -1 }, { locale: "en", strength: 2 }).sort(docs)), [3, 2, 1, 4]);
  t.deepEqual(ids(compileSort({}).sort(docs)), [1, 2, 3, 4]);
  t.deepEqual(ids([...docs].sort(compileSort({ n: 1 }))), [2, 4, 1, 3], "comparator form is stable too");
});

test("invalid specs", (t) => {
  t.is(t.throws(() => compileSort({ a: 2 }))?.["code" as keyof Error], 15975 as never);
  t.is(t.throws(() => compileSort({ a: { $meta: "textScore" } }))?.["code" as keyof Error], 2 as never);
});
