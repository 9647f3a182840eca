/**
 * Embedded engine benchmark on 100k documents: insert, `_id` find, indexed equality find and an
 * unindexed scan, each through the real `mongodb` driver (wire) and through direct engine calls
 * (`engine.runCommand`, no TCP/BSON framing). Prints ops/s and ratios against same-run baselines:
 * the scan (indexed speed-up, must be ≥ 50× on the engine) and a driver `ping` (the floor of one
 * driver round trip, which dominates every driver-level number).
 *
 * @example
 * npm run bench -- embedded-mongo
 */
import { ObjectId } from "bson";
import type { Document } from "bson";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../adapters/embedded-mongo/index.js";
import type { JournalOptions } from "../adapters/embedded-mongo/index.js";

const DOCS = 100_000;
const BATCH = 1_000;

interface Result {
  readonly name: string;
  readonly opsPerSecond: number;
}

async function measure(name: string, ops: number, run: (i: number) => Promise<unknown>): Promise<Result> {
  // Warm up JIT and caches on a slice of the work so the timed part is steady-state.
  for (let i = 0; i < Math.min(50, ops); i++) await run(i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await run(i);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { name, opsPerSecond: ops / seconds };
}

function row(result: Result, baseline: Result, unit = "ops/s"): string {
  const ratio = result.opsPerSecond / baseline.opsPerSecond;
  return `  ${result.name.padEnd(44)} ${Math.round(result.opsPerSecond).toLocaleString("en-US").padStart(12)} ${unit}   ${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}× ${baseline.name}`;
}

function documentsFor(start: number, count: number): Document[] {
  const docs: Document[] = [];
  for (let i = start; i < start + count; i++) {
    docs.push({ _id: ObjectId.createFromTime(1_700_000_000 + i), n: i, key: `key-${i}`, unindexed: `value-${i}`, group: i % 100, payload: "x".repeat(64) });
  }
  return docs;
}

export default async function benchEmbeddedMongo(): Promise<void> {
  const server = await startEmbeddedMongo({ logger: { error: console.error, warn: console.warn, info() {}, debug() {} } });
  const client = await new MongoClient(server.uri).connect();
  const engine = server.engine;
  try {
    const wire = client.db("bench").collection("wire");
    await wire.createIndex({ key: 1 });
    await engine.runCommand("bench", { createIndexes: "direct", indexes: [{ key: { key: 1 }, name: "key_1" }] });

    const ping = await measure("driver ping (baseline)", 3000, () => client.db("admin").command({ ping: 1 }));

    // Inserts: 100k documents in batches of 1000, reported per document.
    let next = 0;
    const insertWire = await measure("driver insertMany (per doc)", DOCS / BATCH, async () => {
      await wire.insertMany(documentsFor(next, BATCH), { ordered: true });
      next += BATCH;
    });
    let nextDirect = 0;
    const insertDirect = await measure("direct insert (per doc)", DOCS / BATCH, async () => {
      await engine.runCommand("bench", { insert: "direct", documents: documentsFor(nextDirect, BATCH) });
      nextDirect += BATCH;
    });
    const perDoc = (result: Result): Result => ({ name: result.name, opsPerSecond: result.opsPerSecond * BATCH });

    const pick = (i: number): number => (i * 7919) % DOCS;
    const idFindWire = await measure("driver find by _id", 3000, (i) => wire.findOne({ _id: ObjectId.createFromTime(1_700_000_000 + pick(i)) }));
    const idFindDirect = await measure("direct find by _id", 3000, (i) =>
      engine.runCommand("bench", { find: "direct", filter: { _id: ObjectId.createFromTime(1_700_000_000 + pick(i)) }, limit: 1, singleBatch: true }),
    );
    const indexedWire = await measure("driver indexed equality find", 3000, (i) => wire.findOne({ key: `key-${pick(i)}` }));
    const indexedDirect = await measure("direct indexed equality find", 3000, (i) =>
      engine.runCommand("bench", { find: "direct", filter: { key: `key-${pick(i)}` }, limit: 1, singleBatch: true }),
    );
    const scanWire = await measure("driver unindexed scan find", 30, (i) => wire.findOne({ unindexed: `value-${pick(i)}` }));
    const scanDirect = await measure("direct unindexed scan find", 30, (i) =>
      engine.runCommand("bench", { find: "direct", filter: { unindexed: `value-${pick(i)}` }, limit: 1, singleBatch: true }),
    );

    console.log(`embedded engine, ${DOCS.toLocaleString("en-US")} documents per collection`);
    console.log("\n driver (wire) vs direct engine calls, against the driver ping round trip:");
    for (const result of [ping, perDoc(insertWire), perDoc(insertDirect), idFindWire, idFindDirect, indexedWire, indexedDirect, scanWire, scanDirect]) {
      console.log(row(result, ping));
    }
    console.log("\n indexed vs unindexed (baseline: the scan of the same access path):");
    console.log(row(indexedWire, scanWire));
    console.log(row(indexedDirect, scanDirect));
    console.log("\n direct vs driver for the same operation:");
    console.log(row(perDoc(insertDirect), perDoc(insertWire)));
    console.log(row(idFindDirect, idFindWire));
    console.log(row(indexedDirect, indexedWire));
    // The engine's own speed-up is measured on direct calls: through the driver every operation
    // also pays the driver's fixed per-command cost, which caps the visible ratio.
    const speedup = indexedDirect.opsPerSecond / scanDirect.opsPerSecond;
    const driverSpeedup = indexedWire.opsPerSecond / scanWire.opsPerSecond;
    console.log(`\n indexed/unindexed speed-up (engine): ${speedup.toFixed(0)}× (required ≥ 50×: ${speedup >= 50 ? "ok" : "FAILED"}); through the driver: ${driverSpeedup.toFixed(0)}×`);
    if (speedup < 50) process.exitCode = 1;
  } finally {
    await client.close();
    await server.stop();
  }
  await benchJournal();
  await benchFailPoints();
}

const FAIL_POINT_CHUNK = 1_000;
const FAIL_POINT_CYCLES = 20;

/**
 * What fault injection costs the commands it does not fail: single-document inserts and `_id`
 * finds through direct engine calls (the most sensitive path: no TCP) on three engines — one that
 * never had a fail point (before), one with a `failCommand` set on another command (every command
 * runs the selection), one whose fail point was set and turned off again (after). The engines
 * take turns in chunks of 1000 operations (a first, discarded cycle warms up) and each reports its
 * median chunk, so a change in the machine's load hits all three alike instead of reading as a cost.
 */
export async function benchFailPoints(): Promise<void> {
  const logger = { error: console.error, warn: console.warn, info() {}, debug() {} };
  const configure = (mode: string) => ({ configureFailPoint: "failCommand", mode, data: { failCommands: ["distinct"], errorCode: 2 } });
  const states = [
    { label: "no fail point set (before)", setUp: [] as string[] },
    { label: "failCommand set on another command", setUp: ["alwaysOn"] },
    { label: "fail point turned off (after)", setUp: ["alwaysOn", "off"] },
  ];
  const servers = await Promise.all(states.map(() => startEmbeddedMongo({ logger, enableTestCommands: true })));
  try {
    const runs = await Promise.all(
      states.map(async (state, index) => {
        const engine = servers[index]!.engine;
        for (const mode of state.setUp) await engine.runCommand("admin", configure(mode));
        return { state, engine, inserted: 0, insertSeconds: [] as number[], findSeconds: [] as number[] };
      }),
    );
    const timed = async (ops: number, op: (i: number) => Promise<unknown>): Promise<number> => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < ops; i++) await op(i);
      return Number(process.hrtime.bigint() - started) / 1e9;
    };
    for (let cycle = 0; cycle <= FAIL_POINT_CYCLES; cycle++) {
      for (let turn = 0; turn < runs.length; turn++) {
        const run = runs[(turn + cycle) % runs.length]!;
        const insertSeconds = await timed(FAIL_POINT_CHUNK, () =>
          run.engine.runCommand("bench", { insert: "faults", documents: documentsFor(run.inserted++, 1) }),
        );
        const findSeconds = await timed(FAIL_POINT_CHUNK, (i) =>
          run.engine.runCommand("bench", { find: "faults", filter: { _id: ObjectId.createFromTime(1_700_000_000 + ((i * 7919) % run.inserted)) }, limit: 1, singleBatch: true }),
        );
        if (cycle === 0) continue;
        run.insertSeconds.push(insertSeconds);
        run.findSeconds.push(findSeconds);
      }
    }
    // The median chunk: a chunk stalled by another process on the machine does not count.
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const results = runs.map((run) => ({
      insert: { name: `insert, ${run.state.label}`, opsPerSecond: FAIL_POINT_CHUNK / median(run.insertSeconds) },
      find: { name: `find by _id, ${run.state.label}`, opsPerSecond: FAIL_POINT_CHUNK / median(run.findSeconds) },
    }));
    const ops = FAIL_POINT_CHUNK * FAIL_POINT_CYCLES;
    console.log(`\n fault injection: direct single-document inserts and _id finds (${ops.toLocaleString("en-US")} each in chunks of ${FAIL_POINT_CHUNK}, engines taking turns; median chunk)`);
    for (const result of results) console.log(row(result.insert, results[0]!.insert));
    for (const result of results) console.log(row(result.find, results[0]!.find));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/** Inserts per journal configuration (bounded: a few seconds in all even at 1 ms per fsync). */
const JOURNAL_SEQUENTIAL = 2_000;
const JOURNAL_WRITERS = 32;
const JOURNAL_PER_WRITER = 100;
const JOURNAL_BATCHES = 20;

interface JournalResult extends Result {
  /** Committed batches (journal records) per fsync; absent in memory. */
  readonly recordsPerSync?: number;
}

/**
 * What durability costs: single-document inserts through direct engine calls, in memory vs on a
 * temporary `dbPath` with each journal fsync mode, one writer at a time and 32 concurrent
 * writers (with and without group commit), plus 1000-document batches.
 */
async function benchJournal(): Promise<void> {
  const logger = { error: console.error, warn: console.warn, info() {}, debug() {} };
  const directories: string[] = [];
  const run = async (
    name: string,
    journal: JournalOptions | undefined,
    shape: "sequential" | "concurrent" | "batches",
  ): Promise<JournalResult> => {
    let dbPath: string | undefined;
    if (journal) {
      dbPath = mkdtempSync(path.join(tmpdir(), "svc-bench-journal-"));
      directories.push(dbPath);
    }
    const server = await startEmbeddedMongo({ logger, dbPath, journal: { compactOnClose: false, ...journal } });
    const engine = server.engine;
    try {
      await engine.runCommand("bench", { insert: "warmup", documents: documentsFor(0, 200) });
      const stats = (): { records: number; syncs: number } => server.journal?.stats() ?? { records: 0, syncs: 0 };
      const before = stats();
      const started = process.hrtime.bigint();
      let ops = 0;
      if (shape === "sequential") {
        for (let i = 0; i < JOURNAL_SEQUENTIAL; i++) await engine.runCommand("bench", { insert: "docs", documents: documentsFor(i, 1) });
        ops = JOURNAL_SEQUENTIAL;
      } else if (shape === "concurrent") {
        await Promise.all(
          Array.from({ length: JOURNAL_WRITERS }, async (_, writer) => {
            for (let i = 0; i < JOURNAL_PER_WRITER; i++) {
              await engine.runCommand("bench", { insert: "docs", documents: documentsFor(writer * JOURNAL_PER_WRITER + i, 1) });
            }
          }),
        );
        ops = JOURNAL_WRITERS * JOURNAL_PER_WRITER;
      } else {
        for (let i = 0; i < JOURNAL_BATCHES; i++) await engine.runCommand("bench", { insert: "docs", documents: documentsFor(i * BATCH, BATCH) });
        ops = JOURNAL_BATCHES * BATCH;
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const after = stats();
      const syncs = after.syncs - before.syncs;
      return { name, opsPerSecond: ops / seconds, ...(journal && syncs > 0 ? { recordsPerSync: (after.records - before.records) / syncs } : {}) };
    } finally {
      await server.stop();
    }
  };
  const print = (result: JournalResult, baseline: Result): void => {
    const grouping = result.recordsPerSync === undefined ? "" : `   ${result.recordsPerSync.toFixed(1)} records/fsync`;
    console.log(`${row(result, baseline, "inserts/s")}${grouping}`);
  };
  try {
    console.log(`\n journal: direct single-document inserts, in memory vs journaled to a temporary dbPath`);
    console.log(` one writer (${JOURNAL_SEQUENTIAL.toLocaleString("en-US")} inserts, each awaited):`);
    const memory = await run("in memory (baseline)", undefined, "sequential");
    print(memory, memory);
    for (const fsync of ["always", "interval", "never"] as const) print(await run(`journal fsync ${fsync}`, { fsync }, "sequential"), memory);
    console.log(` ${JOURNAL_WRITERS} concurrent writers × ${JOURNAL_PER_WRITER} inserts:`);
    const memoryConcurrent = await run("in memory (baseline)", undefined, "concurrent");
    print(memoryConcurrent, memoryConcurrent);
    const grouped = await run("journal fsync always, group commit", { fsync: "always" }, "concurrent");
    const alone = await run("journal fsync always, no group commit", { fsync: "always", groupCommit: false }, "concurrent");
    print(grouped, memoryConcurrent);
    print(alone, memoryConcurrent);
    print(grouped, alone);
    console.log(` insert batches of ${BATCH} documents (${JOURNAL_BATCHES} batches, per document):`);
    const memoryBatches = await run("in memory (baseline)", undefined, "batches");
    print(memoryBatches, memoryBatches);
    print(await run("journal fsync always", { fsync: "always" }, "batches"), memoryBatches);
  } finally {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  }
}
