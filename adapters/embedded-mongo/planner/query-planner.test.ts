import test from "ava";
import { Decimal128, Double, Int32, Long } from "bson";
import type { Document } from "bson";
import { createEngine } from "../engine.js";
import type { Engine } from "../engine.js";

/** Deterministic pseudo-random numbers so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const VALUES: unknown[] = [
  null, 0, 1, 2, 5, -3, 2.5, new Int32(2), new Long(5), new Double(1), Decimal128.fromString("2.50"),
  "a", "b", "B", "ab", "", true, false, new Date(1000), new Date(2000), { x: 1 }, [1, 5], [], ["a", 2],
];

function value(next: () => number): unknown {
  return VALUES[Math.floor(next() * VALUES.length)];
}

function randomDoc(next: () => number, i: number): Document {
  const doc: Document = { _id: i };
  for (const field of ["a", "b"]) if (next() < 0.85) doc[field] = value(next);
  if (next() < 0.5) doc["s"] = { t: value(next) };
  return doc;
}

function randomCondition(next: () => number): unknown {
  const v = value(next);
  switch (Math.floor(next() * 7)) {
    case 0:
      return v;
    case 1:
      return { $in: [value(next), value(next), v].filter((x) => !Array.isArray(x)) };
    case 2:
      return { $gt: v };
    case 3:
      return { $gte: v, $lt: value(next) };
    case 4:
      return { $lte: v };
    case 5:
      return { $eq: v };
    default:
      return { $gt: 1, $lte: 5 };
  }
}

async function ids(engine: Engine, command: Document): Promise<unknown[]> {
  const reply = await engine.runCommand("plan", { ...command, batchSize: 100000 });
  if (reply.ok !== 1) throw new Error(JSON.stringify(reply));
  return (reply.cursor.firstBatch as Document[]).map((doc) => doc["_id"]);
}

const INDEXES: Array<{ name: string; spec: Document }> = [
  { name: "a_asc", spec: { key: { a: 1 }, name: "a_1" } },
  { name: "a_desc", spec: { key: { a: -1 }, name: "a_-1" } },
  { name: "compound", spec: { key: { a: 1, b: -1 }, name: "a_1_b_-1" } },
  { name: "sparse", spec: { key: { a: 1 }, name: "a_sparse", sparse: true } },
  { name: "partial", spec: { key: { a: 1 }, name: "a_partial", partialFilterExpression: { b: { $exists: true } } } },
  { name: "dotted", spec: { key: { "s.t": 1 }, name: "s.t_1" } },
  { name: "collated", spec: { key: { a: 1 }, name: "a_ci", collation: { locale: "en", strength: 2 } } },
];

for (const { name, spec } of INDEXES) {
  test(`index plans return exactly what a collection scan returns (${name})`, async (t) => {
    const engine = createEngine();
    t.teardown(() => engine.close());
    const next = random(name.length * 7919);
    const documents = Array.from({ length: 300 }, (_, i) => randomDoc(next, i));
    // A compound index refuses two array fields in one document (171): keep b scalar there.
    if (name === "compound") for (const doc of documents) if (Array.isArray(doc["b"])) doc["b"] = 7;
    await engine.runCommand("plan", { insert: "c", documents });
    const created = await engine.runCommand("plan", { createIndexes: "c", indexes: [spec] });
    t.is(created.ok, 1, JSON.stringify(created));
    let usedIndex = 0;
    for (let round = 0; round < 80; round++) {
      const filter: Document = { a: randomCondition(next) };
      if (next() < 0.4) filter["b"] = randomCondition(next);
      if (name === "dotted") filter["s.t"] = filter["a"];
      if (name === "partial" && next() < 0.5) filter["b"] = { $exists: true };
      const sort = next() < 0.5 ? { a: next() < 0.5 ? 1 : -1, _id: 1 } : { _id: 1 };
      const collation = name === "collated" && next() < 0.5 ? { locale: "en", strength: 2 } : undefined;
      const base = { find: "c", filter, sort, ...(collation ? { collation } : {}) };
      const expected = await ids(engine, { ...base, hint: { $natural: 1 } });
      const actual = await ids(engine, base);
      t.deepEqual(actual, expected, JSON.stringify({ filter, sort, collation }));
      const explain = await engine.runCommand("plan", { explain: base, verbosity: "queryPlanner" });
      if (JSON.stringify(explain.queryPlanner.winningPlan).includes("IXSCAN")) usedIndex += 1;
    }
    t.true(usedIndex > 10, `the planner used the index in ${usedIndex} of 80 queries`);
  });
}

test("_id equality uses IDHACK; sort on an index prefix avoids a blocking sort; hint forces an index", async (t) => {
  const engine = createEngine();
  t.teardown(() => engine.close());
  await engine.runCommand("plan", { insert: "c", documents: Array.from({ length: 100 }, (_, i) => ({ _id: i, a: i % 10, b: i })) });
  await engine.runCommand("plan", { createIndexes: "c", indexes: [{ key: { a: 1, b: 1 }, name: "a_1_b_1" }] });
  const plan = async (command: Document): Promise<Document> =>
    (await engine.runCommand("plan", { explain: command, verbosity: "executionStats" })) as Document;
  const byId = await plan({ find: "c", filter: { _id: 42 } });
  t.is(byId.queryPlanner.winningPlan.stage, "IDHACK");
  t.is(byId.executionStats.totalDocsExamined, 1);
  const sorted = await plan({ find: "c", filter: { a: 3 }, sort: { b: -1 }, limit: 2 });
  const sortedPlan = JSON.stringify(sorted.queryPlanner.winningPlan);
  t.false(sortedPlan.includes("SORT"), sortedPlan);
  t.true(sortedPlan.includes('"direction":"backward"'));
  t.is(sorted.executionStats.totalDocsExamined, 2);
  const range = await plan({ find: "c", filter: { a: { $in: [1, 2] }, b: { $gte: 50 } } });
  t.is(range.executionStats.nReturned, 10);
  t.true(range.executionStats.totalKeysExamined <= 20);
  const hinted = await plan({ find: "c", filter: {}, hint: { a: 1, b: 1 } });
  t.is(hinted.queryPlanner.winningPlan.inputStage.indexName, "a_1_b_1");
  const unknownHint = await engine.runCommand("plan", { find: "c", filter: {}, hint: "missing" });
  t.is(unknownHint.code, 2);
  const natural = await plan({ find: "c", filter: { a: 3 }, hint: { $natural: 1 } });
  t.is(natural.queryPlanner.winningPlan.stage, "COLLSCAN");
});
