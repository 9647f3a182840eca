import test from "ava";
import { Decimal128, Double, Int32, Long } from "bson";
import { runPipeline } from "./aggregate.js";
import type { PipelineContext } from "./aggregate.js";
import type { Document } from "./types.js";
import { thrownCode } from "../test-support/thrown-code.js";

const typed = (v: unknown) => `${(v as { _bsontype?: string } | null)?._bsontype ?? typeof v}(${String(v)})`;

function ctx(collections: Record<string, Document[]> = {}, extra: Partial<PipelineContext> = {}): PipelineContext {
  return { resolveCollection: (name) => collections[name] ?? [], now: new Date(0), ...extra };
}

function run(docs: Document[], pipeline: Document[], c: PipelineContext = ctx()): Document[] {
  return runPipeline(docs, pipeline, c).results;
}

const i = (n: number) => new Int32(n);
const d = (n: number) => new Double(n);

test("Int32/Double distinction survives pass-through stages", (t) => {
  const docs: Document[] = [
    { _id: i(1), n: d(5), m: i(5), arr: [d(1), i(2)], sub: { v: d(3) } },
    { _id: i(2), n: d(2), m: i(2), arr: [d(7)], sub: { v: i(3) } },
  ];
  const out = run(docs, [
    { $match: { n: { $gte: i(1) } } },
    { $sort: { n: i(1) } },
    { $skip: i(0) },
    { $limit: i(10) },
    { $project: { n: i(1), m: i(1), arr: i(1), sub: i(1), copy: "$n" } },
    { $addFields: { alsoCopy: "$m", root: "$sub" } },
    { $unwind: "$arr" },
  ]);
  t.deepEqual(
    out.map((o) => [typed(o.n), typed(o.m), typed(o.arr), typed(o.copy), typed(o.alsoCopy), typed((o.root as Document).v)]),
    [
      ["Double(2)", "Int32(2)", "Double(7)", "Double(2)", "Int32(2)", "Int32(3)"],
      ["Double(5)", "Int32(5)", "Double(1)", "Double(5)", "Int32(5)", "Double(3)"],
      ["Double(5)", "Int32(5)", "Int32(2)", "Double(5)", "Int32(5)", "Double(3)"],
    ],
  );
  const grouped = run(docs, [{ $group: { _id: null, first: { $first: "$n" }, all: { $push: "$m" } } }]);
  t.deepEqual([typed(grouped[0]!.first), (grouped[0]!.all as unknown[]).map(typed)], ["Double(5)", ["Int32(5)", "Int32(2)"]]);
  const replaced = run(docs, [{ $replaceRoot: { newRoot: "$sub" } }]);
  t.deepEqual(replaced.map((r) => typed(r.v)), ["Double(3)", "Int32(3)"]);
});

test("$group accumulators follow numeric promotion", (t) => {
  const docs: Document[] = [{ n: i(2147483647) }, { n: i(1) }, { n: "not a number" }];
  const [g] = run(docs, [{ $group: { _id: null, s: { $sum: "$n" }, c: { $sum: i(1) }, a: { $avg: "$n" }, cnt: { $count: {} } } }]);
  t.is(typed(g!.s), "Long(2147483648)");
  t.is(typed(g!.c), "Int32(3)");
  t.is(typed(g!.a), "Double(1073741824)");
  t.is(typed(g!.cnt), "Int32(3)");
  const [dbl] = run([{ n: i(1) }, { n: d(0.5) }], [{ $group: { _id: null, s: { $sum: "$n" } } }]);
  t.is(typed(dbl!.s), "Double(1.5)");
  const [dec] = run([{ n: Decimal128.fromString("0.1") }, { n: i(1) }], [{ $group: { _id: null, s: { $sum: "$n" }, a: { $avg: "$n" } } }]);
  t.is(typed(dec!.s), "Decimal128(1.1)");
  t.is(typed(dec!.a), "Decimal128(0.55)");
});

test("$project arithmetic keeps types: $add, $subtract, $multiply", (t) => {
  const [o] = run([{ a: i(3), b: i(4), c: d(0.5), big: Long.fromString("9007199254740993") }], [
    { $project: { _id: 0, sum: { $add: ["$a", "$b"] }, diff: { $subtract: ["$a", "$c"] }, prod: { $multiply: ["$a", "$b"] }, bigger: { $add: ["$big", i(2)] } } },
  ]);
  t.deepEqual(Object.values(o!).map(typed), ["Int32(7)", "Double(2.5)", "Int32(12)", "Long(9007199254740995)"]);
});

test("Long beyond 2^53 and Decimal128 are never rounded", (t) => {
  const docs: Document[] = [
    { g: "x", n: Long.fromString("9007199254740993"), dec: Decimal128.fromString("1.000000000000000000000000000000001") },
    { g: "x", n: Long.fromString("9007199254740993"), dec: Decimal128.fromString("2") },
  ];
  const [g] = run(docs, [{ $group: { _id: "$g", s: { $sum: "$n" }, m: { $max: "$dec" }, all: { $push: "$n" } } }]);
  t.is(typed(g!.s), "Long(18014398509481986)");
  t.is(typed(g!.m), "Decimal128(2)");
  t.is(typed((g!.all as unknown[])[0]), "Long(9007199254740993)");
  // A stage that runs in mingo passes such values through untouched...
  const windowed = run(docs, [{ $setWindowFields: { sortBy: { g: 1 }, output: { rank: { $documentNumber: {} } } } }]);
  t.is(typed(windowed[0]!.n), "Long(9007199254740993)");
  t.is(typed(windowed[0]!.dec), "Decimal128(1.000000000000000000000000000000001)");
  t.is(typed(windowed[0]!.rank), "Int32(1)");
  // ...and refuses to compute with them rather than return a wrong answer.
  t.is(thrownCode(() => run(docs, [{ $setWindowFields: { sortBy: { g: 1 }, output: { s: { $sum: "$dec" } } } }])), 2);
  t.is(thrownCode(() => run(docs, [{ $setWindowFields: { sortBy: { n: 1 }, output: { r: { $rank: {} } } } }])), 2);
  t.true(run(docs, [{ $match: { n: { $gt: d(9007199254740992) } } }]).length === 2);
});

test("delegated stages keep the types of fields they do not read", (t) => {
  const docs: Document[] = [{ _id: i(1), g: "a", v: i(1), keep: d(2) }, { _id: i(2), g: "a", v: i(2), keep: d(3) }];
  const out = run(docs, [{ $setWindowFields: { partitionBy: "$g", sortBy: { _id: 1 }, output: { running: { $sum: "$v", window: { documents: ["unbounded", "current"] } } } } }]);
  t.deepEqual(out.map((o) => [typed(o.keep), typed(o.running)]), [["Double(2)", "Int32(1)"], ["Double(3)", "Int32(3)"]]);
  const dens = run([{ n: i(1) }, { n: i(4) }], [{ $densify: { field: "n", range: { step: i(1), bounds: "full" } } }]);
  t.deepEqual(dens.map((o) => typed(o.n)), ["Int32(1)", "Int32(2)", "Int32(3)", "Int32(4)"]);
});

test("$match uses query semantics: type brackets and array matching", (t) => {
  const docs: Document[] = [{ _id: 1, v: i(10) }, { _id: 2, v: "20" }, { _id: 3, v: [i(1), i(30)] }, { _id: 4 }];
  t.deepEqual(run(docs, [{ $match: { v: { $gt: i(5) } } }]).map((x) => x._id), [1, 3]);
  t.deepEqual(run(docs, [{ $match: { v: null } }]).map((x) => x._id), [4]);
  t.deepEqual(run(docs, [{ $match: { $expr: { $gt: ["$v", i(5)] } } }]).map((x) => x._id), [1, 2, 3], "$expr compares across types in BSON order");
});

test("$sort uses BSON order across types and exact numbers", (t) => {
  const docs: Document[] = [{ _id: 1, v: "a" }, { _id: 2, v: Long.fromString("9007199254740993") }, { _id: 3, v: d(9007199254740992) }, { _id: 4, v: null }, { _id: 5, v: [i(0), i(99)] }];
  t.deepEqual(run(docs, [{ $sort: { v: i(1) } }]).map((x) => x._id), [4, 5, 3, 2, 1]);
  t.deepEqual(run(docs, [{ $sort: { v: i(-1) } }]).map((x) => x._id), [1, 2, 3, 5, 4], "descending uses the largest element (99)");
  t.is(thrownCode(() => run(docs, [{ $sort: {} }])), 15976);
});

test("$group keys use BSON equality (numbers across types, documents by value)", (t) => {
  const docs: Document[] = [{ k: i(1) }, { k: d(1) }, { k: Decimal128.fromString("1.0") }, { k: Long.fromNumber(1) }, { k: "1" }, {}, { k: null }, { k: { a: i(1) } }, { k: { a: d(1) } }];
  const groups = run(docs, [{ $group: { _id: "$k", n: { $sum: i(1) } } }]);
  t.deepEqual(groups.map((g) => [typed(g._id), typed(g.n)]), [
    ["Int32(1)", "Int32(4)"],
    ["string(1)", "Int32(1)"],
    ["object(null)", "Int32(2)"],
    ["object([object Object])", "Int32(2)"],
  ]);
  const ci = run([{ k: "A" }, { k: "a" }], [{ $group: { _id: "$k", n: { $sum: i(1) } } }], ctx({}, { collation: { locale: "en", strength: 2 } }));
  t.is(ci.length, 1);
});

test("$unwind options", (t) => {
  const docs: Document[] = [{ _id: 1, a: [i(1), i(2)] }, { _id: 2, a: [] }, { _id: 3, a: null }, { _id: 4 }, { _id: 5, a: "x" }];
  t.deepEqual(run(docs, [{ $unwind: "$a" }]).map((x) => [x._id, x.a]), [[1, i(1)], [1, i(2)], [5, "x"]]);
  const kept = run(docs, [{ $unwind: { path: "$a", includeArrayIndex: "idx", preserveNullAndEmptyArrays: true } }]);
  t.deepEqual(kept.map((x) => [x._id, "a" in x ? x.a : "-", x.idx === null ? null : typed(x.idx)]), [
    [1, i(1), "Long(0)"],
    [1, i(2), "Long(1)"],
    [2, "-", null],
    [3, null, null],
    [4, "-", null],
    [5, "x", null],
  ]);
  t.is(thrownCode(() => run(docs, [{ $unwind: "a" }])), 28818);
});

test("$lookup: equality form and pipeline form with let", (t) => {
  const orders: Document[] = [{ _id: 1, item: "a", qty: i(5) }, { _id: 2, item: ["b", "c"] }, { _id: 3 }];
  const inventory: Document[] = [{ _id: 10, sku: "a", stock: i(1) }, { _id: 11, sku: "b", stock: i(9) }, { _id: 12, sku: "c" }, { _id: 13 }];
  const c = ctx({ inventory });
  const eq = run(orders, [{ $lookup: { from: "inventory", localField: "item", foreignField: "sku", as: "inv" } }], c);
  t.deepEqual(eq.map((o) => (o.inv as Document[]).map((x) => x._id)), [[10], [11, 12], [13]], "missing matches missing/null");
  const piped = run(
    orders,
    [
      {
        $lookup: {
          from: "inventory",
          let: { want: "$qty" },
          pipeline: [{ $match: { $expr: { $gte: ["$stock", "$$want"] } } }, { $project: { _id: 1 } }],
          as: "enough",
        },
      },
    ],
    c,
  );
  t.deepEqual(piped.map((o) => (o.enough as Document[]).map((x) => x._id)), [[11], [10, 11, 12, 13], [10, 11, 12, 13]]);
});

test("$facet, $count, $bucket, $sortByCount, $unionWith, $sample, $redact", (t) => {
  const docs: Document[] = [{ _id: 1, p: i(5), t: "a" }, { _id: 2, p: i(15), t: "b" }, { _id: 3, p: i(25), t: "a" }];
  const [facet] = run(docs, [{ $facet: { total: [{ $count: "n" }], top: [{ $sort: { p: i(-1) } }, { $limit: i(1) }] } }]);
  t.deepEqual(facet, { total: [{ n: i(3) }], top: [docs[2]] });
  t.deepEqual(run([], [{ $count: "n" }]), []);
  const buckets = run(docs, [{ $bucket: { groupBy: "$p", boundaries: [i(0), i(10), i(20)], default: "other" } }]);
  t.deepEqual(buckets, [{ _id: i(0), count: i(1) }, { _id: i(10), count: i(1) }, { _id: "other", count: i(1) }]);
  t.deepEqual(run(docs, [{ $sortByCount: "$t" }]), [{ _id: "a", count: i(2) }, { _id: "b", count: i(1) }]);
  t.is(run(docs, [{ $unionWith: "more" }], ctx({ more: [{ _id: 9 }] })).length, 4);
  t.is(run(docs, [{ $sample: { size: i(2) } }]).length, 2);
  const redacted = run([{ _id: 1, level: i(1), sub: { level: i(5), x: 1 } }], [{ $redact: { $cond: [{ $gt: ["$level", i(3)] }, "$$PRUNE", "$$DESCEND"] } }]);
  t.deepEqual(redacted, [{ _id: 1, level: i(1) }]);
});

test("$out and $merge return a write intent instead of writing", (t) => {
  const docs: Document[] = [{ _id: 1 }, { _id: 2 }];
  const out = runPipeline(docs, [{ $match: {} }, { $out: "archive" }], ctx());
  t.deepEqual(out.results, []);
  t.deepEqual(out.output, { stage: "$out", target: { coll: "archive" }, docs });
  const merged = runPipeline(docs, [{ $merge: { into: { db: "other", coll: "c" }, on: "_id", whenMatched: "replace" } }], ctx());
  t.deepEqual(merged.output, { stage: "$merge", target: { db: "other", coll: "c" }, docs, on: ["_id"], whenMatched: "replace", whenNotMatched: "insert" });
  t.is(thrownCode(() => runPipeline(docs, [{ $out: "x" }, { $match: {} }], ctx())), 40601);
});

test("variables, $$NOW and stage errors", (t) => {
  const [o] = run([{ _id: 1 }], [{ $project: { now: "$$NOW", v: "$$limit" } }], ctx({}, { variables: { limit: i(3) } }));
  t.deepEqual(o, { _id: 1, now: new Date(0), v: i(3) });
  t.is(thrownCode(() => run([], [{ $bogus: {} }])), 40324);
  t.is(thrownCode(() => run([], [{ $match: {}, $limit: 1 }])), 40323);
  t.is(thrownCode(() => run([], [{ $group: { _id: null, x: { $bogus: 1 } } }])), 15952);
});

test("$graphLookup runs through mingo with the collection resolver", (t) => {
  const employees: Document[] = [
    { _id: i(1), name: "Dev", boss: null, level: i(3) },
    { _id: i(2), name: "Eliot", boss: "Dev", level: i(2) },
    { _id: i(3), name: "Ron", boss: "Eliot", level: i(1) },
  ];
  const spec = { from: "employees", startWith: "$boss", connectFromField: "boss", connectToField: "name", as: "chain" };
  const [ron] = run([employees[2]!], [{ $graphLookup: spec }], ctx({ employees }));
  t.deepEqual((ron!.chain as Document[]).map((e) => String(e.name)).sort(), ["Dev", "Eliot"]);
  t.is(typed(ron!.level), "Int32(1)");
  t.is(typed((ron!.chain as Document[])[0]!.level), "Int32(" + String(((ron!.chain as Document[])[0]!.level as Int32).value) + ")");
  // restrictSearchWithMatch is evaluated on converted documents: Eliot (level 2) stops the walk.
  const [restricted] = run([employees[2]!], [{ $graphLookup: { ...spec, restrictSearchWithMatch: { level: { $gt: i(2) } } } }], ctx({ employees }));
  t.deepEqual(restricted!.chain, []);
});
