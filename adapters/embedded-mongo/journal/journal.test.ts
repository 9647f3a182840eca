import test from "ava";
import { Decimal128, Double, EJSON, Int32, Long, ObjectId, UUID } from "bson";
import type { Document } from "bson";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Engine } from "../engine.js";
import { startEmbeddedMongo } from "../start-embedded-mongo.js";
import type { RunningEmbeddedMongo, StartEmbeddedMongoOptions } from "../start-embedded-mongo.js";
import { JournalError, JournalErrorCodes } from "./journal-error.js";
import { segmentPath, snapshotPath } from "./journal-files.js";
import { silentLogger } from "../test-support/silent-logger.js";
import { tempDir } from "../test-support/temp-dir.js";

async function start(t: { teardown(fn: () => Promise<void>): void }, dbPath: string, options: StartEmbeddedMongoOptions = {}): Promise<RunningEmbeddedMongo> {
  const running = await startEmbeddedMongo({ dbPath, logger: silentLogger, ttlIntervalMs: 0, ...options });
  t.teardown(() => running.stop());
  return running;
}

async function ok(engine: Engine, db: string, command: Document): Promise<Document> {
  const reply = await engine.runCommand(db, command);
  if (reply["ok"] !== 1) throw new Error(`${Object.keys(command)[0]} failed: ${JSON.stringify(reply)}`);
  if (Array.isArray(reply["writeErrors"])) throw new Error(`${Object.keys(command)[0]} failed: ${JSON.stringify(reply["writeErrors"])}`);
  return reply;
}

/** Everything that must survive a restart, in canonical EJSON (exact BSON types, UUIDs). */
function dump(engine: Engine): string {
  const out: Document = {};
  for (const db of engine.storage.databaseNames().sort()) {
    for (const collection of engine.storage.collections(db).sort((a, b) => a.name.localeCompare(b.name))) {
      out[collection.ns] = {
        uuid: Buffer.from(collection.uuid.buffer).toString("hex"),
        options: collection.optionsDocument(),
        indexes: [...collection.indexes.values()].map((index) => index.spec.document),
        documents: [...collection.records.values()].map((record) => record.doc),
      };
    }
  }
  return EJSON.stringify(out, { relaxed: false });
}

/** `_id`s in natural order (as JS values: in-process numbers come back from BSON as Int32). */
function idsOf(engine: Engine, db: string, collection: string): unknown[] {
  return [...engine.storage.collection(db, collection)!.records.values()].map((record) => {
    const id = record.doc["_id"] as unknown;
    return id instanceof Int32 ? id.value : id;
  });
}

/** A workload touching every kind of journaled operation. */
async function workload(engine: Engine): Promise<void> {
  await ok(engine, "app", { create: "people", validator: { name: { $type: "string" } }, validationAction: "error", collation: { locale: "en", strength: 2 } });
  await ok(engine, "app", {
    createIndexes: "people",
    indexes: [
      { key: { email: 1 }, name: "email_1", unique: true },
      { key: { createdAt: 1 }, name: "createdAt_1", expireAfterSeconds: 3600 },
      { key: { team: 1, age: -1 }, name: "team_age", partialFilterExpression: { age: { $gt: 18 } } },
      { key: { nick: 1 }, name: "nick_1", sparse: true },
      { key: { gone: 1 }, name: "gone_1" },
    ],
  });
  const ids = Array.from({ length: 20 }, () => new ObjectId());
  await ok(engine, "app", {
    insert: "people",
    documents: ids.map((_id, i) => ({
      _id,
      name: `person ${i}`,
      email: `p${i}@example.com`,
      age: new Int32(15 + i),
      score: new Double(i + 0.5),
      big: Long.fromString("9007199254740993"),
      price: Decimal128.fromString("12.30"),
      createdAt: new Date(1_700_000_000_000 + i),
      team: i % 3,
      ...(i % 2 ? { nick: `n${i}` } : {}),
    })),
  });
  await ok(engine, "app", { update: "people", updates: [{ q: { team: 1 }, u: { $inc: { age: new Int32(1) }, $set: { tags: ["a", "b"] } }, multi: true }] });
  await ok(engine, "app", { update: "people", updates: [{ q: { _id: ids[0] }, u: { name: "replaced", email: "r@example.com" } }] });
  await ok(engine, "app", { update: "people", updates: [{ q: { email: "new@example.com" }, u: { $set: { name: "upserted" } }, upsert: true }] });
  await ok(engine, "app", { delete: "people", deletes: [{ q: { team: 2 }, limit: 0 }] });
  await ok(engine, "app", { dropIndexes: "people", index: "gone_1" });
  await ok(engine, "app", { collMod: "people", index: { name: "createdAt_1", expireAfterSeconds: 60 }, validationLevel: "moderate" });
  await ok(engine, "app", { findAndModify: "people", query: { _id: ids[1] }, update: { $unset: { nick: "" } }, new: true });
  await ok(engine, "app", { insert: "scratch", documents: [{ _id: 1 }, { _id: 2 }] });
  await ok(engine, "app", { insert: "target", documents: [{ _id: "old" }] });
  await ok(engine, "admin", { renameCollection: "app.scratch", to: "app.target", dropTarget: true });
  await ok(engine, "app", { aggregate: "people", pipeline: [{ $group: { _id: "$team", n: { $sum: 1 } } }, { $out: "report" }], cursor: {} });
  await ok(engine, "other", { insert: "temp", documents: [{ _id: 1 }] });
  await ok(engine, "other", { drop: "temp" });
  await ok(engine, "third", { insert: "x", documents: [{ _id: 1 }] });
  await ok(engine, "third", { dropDatabase: 1 });
}

test("every kind of write is replayed from the journal alone (no snapshot)", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose: false } });
  await workload(first.engine);
  const before = dump(first.engine);
  await first.stop();
  t.deepEqual(readdirSync(dbPath).sort(), ["journal-0000000001.svcj"], "no snapshot was written");
  const second = await start(t, dbPath);
  t.true(second.journal!.recovery.replayedBatches > 20);
  t.is(dump(second.engine), before);
});

test("snapshot + compaction round trip keeps documents, indexes, options and uuids; unique still enforced", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  await workload(first.engine);
  const before = dump(first.engine);
  const clock = first.engine.storage.clock.current();
  await first.stop(); // clean shutdown → snapshot
  t.deepEqual(readdirSync(dbPath).sort(), ["journal-0000000002.svcj", "snapshot-0000000002.svcdb"]);
  const second = await start(t, dbPath);
  t.is(second.journal!.recovery.snapshotGeneration, 2);
  t.is(second.journal!.recovery.replayedBatches, 0);
  t.is(dump(second.engine), before);
  t.true(second.engine.storage.clock.current().greaterThanOrEqual(clock), "the clock never goes back");
  const duplicate = await second.engine.runCommand("app", { insert: "people", documents: [{ name: "dup", email: "p1@example.com" }] });
  t.is(duplicate["writeErrors"]?.[0]?.code, 11000);
  const invalid = await second.engine.runCommand("app", { insert: "people", documents: [{ name: 42 }] });
  t.is(invalid["writeErrors"]?.[0]?.code, 121, "the validator survived");
  const ci = await ok(second.engine, "app", { find: "people", filter: { name: "REPLACED" } });
  t.is(ci["cursor"].firstBatch.length, 1, "the default collation survived");
});

test("snapshot, then more writes in the journal, then a restart: both are combined", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose: false } });
  await workload(first.engine);
  await first.journal!.compact();
  await ok(first.engine, "app", { insert: "later", documents: [{ _id: 1, n: new Int32(1) }] });
  await ok(first.engine, "app", { update: "people", updates: [{ q: { email: "new@example.com" }, u: { $set: { after: true } } }] });
  const before = dump(first.engine);
  await first.stop();
  const second = await start(t, dbPath);
  t.is(second.journal!.recovery.snapshotGeneration, 2);
  t.is(second.journal!.recovery.replayedBatches, 2);
  t.is(dump(second.engine), before);
});

test("compaction is triggered by journal size and old segments are deleted", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactAfterBytes: 16 * 1024, compactOnClose: false } });
  for (let i = 0; i < 200; i++) await ok(first.engine, "app", { insert: "c", documents: [{ _id: i, payload: "x".repeat(200) }] });
  await first.journal!.compact(); // wait for any compaction in flight, then one more
  t.true(first.journal!.stats().compactions >= 2);
  const files = readdirSync(dbPath).filter((file) => file !== "svc-db.lock");
  t.is(files.length, 2, `one snapshot and one segment: ${files.join(", ")}`);
  const before = dump(first.engine);
  await first.stop();
  const second = await start(t, dbPath);
  t.is(dump(second.engine), before);
});

test("leftovers of an interrupted compaction are ignored and cleaned up", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose: false } });
  await ok(first.engine, "app", { insert: "c", documents: [{ _id: 1 }] });
  await first.journal!.compact(); // snapshot 2 + segment 2
  await ok(first.engine, "app", { insert: "c", documents: [{ _id: 2 }] });
  const before = dump(first.engine);
  await first.stop();
  // A crash while writing snapshot 3: the rotation happened (segment 3 exists), the .tmp is partial.
  writeFileSync(`${snapshotPath(dbPath, 3)}.tmp`, "partial");
  writeFileSync(segmentPath(dbPath, 3), "");
  // A crash after snapshot 2's rename but before the old files were deleted.
  writeFileSync(segmentPath(dbPath, 1), "stale");
  writeFileSync(snapshotPath(dbPath, 1), "stale");
  const second = await start(t, dbPath);
  t.is(dump(second.engine), before);
  t.deepEqual(readdirSync(dbPath).sort(), ["journal-0000000002.svcj", "journal-0000000003.svcj", "snapshot-0000000002.svcdb", "svc-db.lock"]);
  await ok(second.engine, "app", { insert: "c", documents: [{ _id: 3 }] });
  await second.stop();
  const third = await start(t, dbPath);
  t.is(third.engine.storage.collection("app", "c")!.count, 3);
});

/** Writes `count` documents (one batch each) and stops without a snapshot. */
async function journalOnly(dbPath: string, count: number): Promise<void> {
  const running = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose: false } });
  for (let i = 0; i < count; i++) await ok(running.engine, "app", { insert: "c", documents: [{ _id: i, text: `document ${i}` }] });
  await running.stop();
}

test("a torn last record (cut short by a few bytes) is dropped and truncated; the rest is intact", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  await journalOnly(dbPath, 10);
  const file = segmentPath(dbPath, 1);
  const size = statSync(file).size;
  truncateSync(file, size - 3);
  const warnings: string[] = [];
  const running = await start(t, dbPath, { logger: { ...silentLogger, warn: (message: string) => warnings.push(message) } });
  t.deepEqual(idsOf(running.engine, "app", "c"), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  t.truthy(running.journal!.recovery.truncated);
  t.true(warnings.some((message) => message.includes("torn journal tail")));
  // Appending continues after the truncation point and survives the next restart.
  await ok(running.engine, "app", { insert: "c", documents: [{ _id: "after" }] });
  await running.stop();
  const again = await start(t, dbPath);
  t.is(again.engine.storage.collection("app", "c")!.count, 10);
  t.truthy(again.engine.storage.collection("app", "c")!.findById("after"));
});

test("garbage appended after the last record is dropped", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  await journalOnly(dbPath, 5);
  const file = segmentPath(dbPath, 1);
  const size = statSync(file).size;
  appendFileSync(file, Buffer.from("\x10\x00\x00\x00garbage that is not a record, plus zeros\x00\x00\x00\x00\x00\x00"));
  const running = await start(t, dbPath);
  t.is(running.engine.storage.collection("app", "c")!.count, 5);
  t.is(running.journal!.recovery.truncated?.offset, size);
  t.is(statSync(file).size, size + 0, "truncated back to the last good record");
});

test("a zero-filled tail (extended file, data never written) is dropped", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  await journalOnly(dbPath, 3);
  appendFileSync(segmentPath(dbPath, 1), Buffer.alloc(4096));
  const running = await start(t, dbPath);
  t.is(running.engine.storage.collection("app", "c")!.count, 3);
});

test("a damaged last record (bad checksum) is dropped", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  await journalOnly(dbPath, 4);
  const file = segmentPath(dbPath, 1);
  const bytes = readFileSync(file);
  bytes[bytes.length - 2]! ^= 0xff;
  writeFileSync(file, bytes);
  const running = await start(t, dbPath);
  t.is(running.engine.storage.collection("app", "c")!.count, 3);
});

test("corruption before the tail is a startup error naming the file and offset", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  await journalOnly(dbPath, 10);
  const file = segmentPath(dbPath, 1);
  const bytes = readFileSync(file);
  // Flip a byte inside the fourth record's payload (the header is record 0).
  let damaged = 0;
  for (let record = 0; record < 4; record++) damaged += 8 + bytes.readUInt32LE(damaged);
  bytes[damaged + 20]! ^= 0x01;
  writeFileSync(file, bytes);
  const error = await t.throwsAsync(startEmbeddedMongo({ dbPath, logger: silentLogger }), { instanceOf: JournalError });
  t.is(error.code, JournalErrorCodes.Corrupt);
  t.is(error.file, file);
  t.is(error.offset, damaged);
  t.true(error.message.includes(file) && error.message.includes(String(damaged)));
  // Nothing was truncated or deleted, and the lock was released.
  t.is(readFileSync(file).length, bytes.length);
  t.false(existsSync(path.join(dbPath, "svc-db.lock")));
});

test("a damaged snapshot is a startup error, not an empty database", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  await ok(first.engine, "app", { insert: "c", documents: Array.from({ length: 50 }, (_, i) => ({ _id: i })) });
  await first.stop();
  const file = snapshotPath(dbPath, 2);
  const bytes = readFileSync(file);
  bytes[Math.floor(bytes.length / 2)]! ^= 0x40;
  writeFileSync(file, bytes);
  const error = await t.throwsAsync(startEmbeddedMongo({ dbPath, logger: silentLogger }), { instanceOf: JournalError });
  t.is(error.code, JournalErrorCodes.Corrupt);
  t.is(error.file, file);
});

test("a missing segment is a startup error", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose: false } });
  await ok(first.engine, "app", { insert: "c", documents: [{ _id: 1 }] });
  await first.journal!.compact();
  await first.stop();
  writeFileSync(segmentPath(dbPath, 4), "");
  const error = await t.throwsAsync(startEmbeddedMongo({ dbPath, logger: silentLogger }), { instanceOf: JournalError });
  t.is(error.file, segmentPath(dbPath, 3));
});

test("group commit: concurrent writers share fsyncs", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const running = await start(t, dbPath, { journal: { compactOnClose: false } });
  const before = running.journal!.stats();
  await Promise.all(
    Array.from({ length: 16 }, async (_, writer) => {
      for (let i = 0; i < 20; i++) await ok(running.engine, "app", { insert: "c", documents: [{ writer, i }] });
    }),
  );
  const after = running.journal!.stats();
  const records = after.records - before.records;
  const syncs = after.syncs - before.syncs;
  t.is(records, 320);
  t.true(syncs < records / 2, `${records} records in ${syncs} fsyncs`);
});

test("without group commit every acknowledged write pays its own fsync", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const running = await start(t, dbPath, { journal: { compactOnClose: false, groupCommit: false } });
  const before = running.journal!.stats();
  await Promise.all(
    Array.from({ length: 8 }, async (_, writer) => {
      for (let i = 0; i < 10; i++) await ok(running.engine, "app", { insert: "c", documents: [{ writer, i }] });
    }),
  );
  const after = running.journal!.stats();
  t.true(after.syncs - before.syncs >= 80);
});

for (const fsync of ["interval", "never"] as const) {
  test(`fsync "${fsync}" still journals every acknowledged write`, async (t) => {
    const dbPath = tempDir(t, "svc-journal-");
    const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { fsync, fsyncIntervalMs: 5, compactOnClose: false } });
    for (let i = 0; i < 30; i++) await ok(first.engine, "app", { insert: "c", documents: [{ _id: i }] });
    await first.stop();
    const second = await start(t, dbPath);
    t.is(second.engine.storage.collection("app", "c")!.count, 30);
  });
}

test("journal options are validated at start-up", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  await t.throwsAsync(startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { fsync: "sometimes" as "always" } }), { instanceOf: TypeError });
  t.false(existsSync(path.join(dbPath, "svc-db.lock")), "the lock is released after a failed start");
});

test("TTL deletes made by the background sweeper are journaled", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, ttlIntervalMs: 0, journal: { compactOnClose: false } });
  await ok(first.engine, "app", { createIndexes: "sessions", indexes: [{ key: { at: 1 }, name: "at_1", expireAfterSeconds: 1 }] });
  await ok(first.engine, "app", { insert: "sessions", documents: [{ _id: 1, at: new Date(0) }, { _id: 2, at: new Date(Date.now() + 3_600_000) }] });
  t.is(first.engine.sweepTtl(), 1);
  await first.stop();
  const second = await start(t, dbPath);
  t.deepEqual(idsOf(second.engine, "app", "sessions"), [2]);
});

// /dev/full fails every write with ENOSPC: a segment linked to it stands for a full disk.
const fullDevice = existsSync("/dev/full") ? test : test.skip;
fullDevice("after a journal write fails, writes are answered with an error and reads go on", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const logged: string[] = [];
  const running = await start(t, dbPath, { logger: { ...silentLogger, error: (message: string) => logged.push(message) }, journal: { compactOnClose: false } });
  await ok(running.engine, "app", { insert: "c", documents: [{ _id: 1 }] });
  symlinkSync("/dev/full", segmentPath(dbPath, 2));
  const compaction = await t.throwsAsync(running.journal!.compact(), { instanceOf: JournalError });
  t.is(compaction.code, JournalErrorCodes.WriteFailed);
  const reply = await running.engine.runCommand("app", { insert: "c", documents: [{ _id: 2 }] });
  t.is(reply["ok"], 0, "the write was not acknowledged");
  t.regex(String(reply["errmsg"]), /durable/);
  t.true(logged.some((message) => message.includes("durability barrier failed")));
  const found = await ok(running.engine, "app", { find: "c", filter: { _id: 1 } });
  t.is(found["cursor"].firstBatch.length, 1);
});

test("retryable writes journaled before a crash are recognised after the restart (not applied twice)", async (t) => {
  const dbPath = tempDir(t, "svc-journal-");
  const lsid = { id: new UUID() };
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose: false } });
  await ok(first.engine, "app", { insert: "c", documents: [{ _id: 1, n: new Int32(1) }], lsid, txnNumber: Long.fromNumber(1) });
  await ok(first.engine, "app", { findAndModify: "c", query: { _id: 1 }, update: { $inc: { n: new Int32(1) } }, lsid, txnNumber: Long.fromNumber(2) });
  await first.stop();

  const second = await start(t, dbPath);
  // The driver retries the findAndModify it never got an answer for: same lsid and txnNumber.
  const retried = await ok(second.engine, "app", { findAndModify: "c", query: { _id: 1 }, update: { $inc: { n: new Int32(1) } }, lsid, txnNumber: Long.fromNumber(2) });
  t.is(Number(retried["value"]?.n), 1, "answered with the pre-image replay found, as the original reply was");
  t.is(Number(second.engine.storage.collection("app", "c")!.findById(1)!.doc["n"]), 2, "not incremented twice");
  await ok(second.engine, "app", { insert: "c", documents: [{ _id: 2 }], lsid, txnNumber: Long.fromNumber(3) });
  t.is(second.engine.storage.collection("app", "c")!.count, 2, "later txnNumbers run normally");
});
