import test from "ava";
import { Long } from "bson";
import { startEmbeddedMongo } from "../start-embedded-mongo.js";
import { committedDocuments, runPlain, TestSession } from "../test-support/session-test-client.js";
import { silentLogger } from "../test-support/silent-logger.js";
import { tempDir } from "../test-support/temp-dir.js";
import { engineFor } from "../test-support/in-process-engine.js";

const toLong = (n: number): Long => Long.fromNumber(n);

test("a retried insert (same lsid and txnNumber) returns the original reply and inserts nothing", async (t) => {
  const engine = engineFor(t);
  const session = new TestSession(engine);
  const insert = { insert: "c", documents: [{ _id: 1 }, { _id: 2 }] };
  const first = await session.retryableWrite("app", insert);
  const retry = await session.retryableWrite("app", insert, session.txnNumber);
  t.is(first.n, 2);
  t.is(retry.n, 2);
  t.is(retry.writeErrors, undefined, "not a duplicate key error: the retry is recognised, not re-run");
  t.is(engine.storage.oplog.size, 3, "create + two inserts, once");
  t.is(engine.storage.oplog.latest()?.inTransaction, undefined, "a retryable write is no transaction");
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1 }, { _id: 2 }]);
  const next = await session.retryableWrite("app", { insert: "c", documents: [{ _id: 3 }] });
  t.is(next.n, 1, "a new txnNumber is a new write");
});

test("update, delete and findAndModify retries apply once and answer as the first time", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1, n: 0 }, { _id: 2 }] });
  const session = new TestSession(engine);
  const update = { update: "c", updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }, { q: { _id: 9 }, u: { $set: { n: 9 } }, upsert: true }] };
  const updated = await session.retryableWrite("app", update);
  t.deepEqual(await session.retryableWrite("app", update, session.txnNumber), updated);
  const counter = { findAndModify: "c", query: { _id: 1 }, update: { $inc: { n: 1 } }, new: true };
  const modified = await session.retryableWrite("app", counter);
  t.is(modified.value.n, 2);
  t.is((await session.retryableWrite("app", counter, session.txnNumber)).value.n, 2);
  const remove = { delete: "c", deletes: [{ q: {}, limit: 1 }] };
  t.is((await session.retryableWrite("app", remove)).n, 1);
  t.is((await session.retryableWrite("app", remove, session.txnNumber)).n, 1);
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 2 }, { _id: 9, n: 9 }], "one $inc twice, one delete");
});

test("an older txnNumber is TransactionTooOld (225); a failed attempt is not remembered; a different command is refused", async (t) => {
  const engine = engineFor(t);
  const session = new TestSession(engine);
  await session.retryableWrite("app", { insert: "c", documents: [{ _id: 1 }] }, 5);
  const old = await session.retryableWrite("app", { insert: "c", documents: [{ _id: 2 }] }, 4);
  t.is(old.code, 225);
  t.is(old.codeName, "TransactionTooOld");
  const failed = await session.retryableWrite("app", { insert: "c", documents: "not an array" }, 6);
  t.is(failed.ok, 0);
  t.is((await session.retryableWrite("app", { insert: "c", documents: [{ _id: 3 }] }, 6)).n, 1, "the retry of a failed command runs");
  t.is((await session.retryableWrite("app", { delete: "c", deletes: [{ q: {}, limit: 0 }] }, 6)).code, 217);
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1 }, { _id: 3 }]);
});

test("writes without lsid or txnNumber are never de-duplicated", async (t) => {
  const engine = engineFor(t);
  const session = new TestSession(engine);
  await runPlain(engine, "app", { insert: "c", documents: [{ n: 1 }], lsid: session.lsid });
  await runPlain(engine, "app", { insert: "c", documents: [{ n: 1 }], lsid: session.lsid });
  t.is((await committedDocuments(engine, "app", "c")).length, 2);
});

test("after a restart, journal replay rebuilds the table: retried writes and commits are still recognised", async (t) => {
  const dbPath = tempDir(t, "svc-retryable-");
  // No snapshot on stop: the restart replays the journal, as after a crash.
  const journal = { compactOnClose: false };
  const first = await startEmbeddedMongo({ dbPath, journal, logger: silentLogger });
  const writer = new TestSession(first.engine);
  const insert = { insert: "c", documents: [{ _id: 1 }, { _id: 2 }] };
  t.is((await writer.retryableWrite("app", insert)).n, 2);
  const counter = { findAndModify: "c", query: { _id: 1 }, update: { $inc: { n: 1 } }, new: true };
  t.is((await writer.retryableWrite("app", counter)).value.n, 1);
  const transactional = new TestSession(first.engine);
  transactional.startTransaction();
  await transactional.run("app", { insert: "c", documents: [{ _id: 3 }] });
  t.is((await transactional.commit()).ok, 1);
  await first.stop();

  const second = await startEmbeddedMongo({ dbPath, journal, logger: silentLogger });
  t.teardown(() => second.stop());
  const retryAll = async (session: TestSession, command: object, txnNumber: number) =>
    runPlain(second.engine, "app", { ...command, lsid: session.lsid, txnNumber: toLong(txnNumber) });
  const retriedFind = await retryAll(writer, counter, 2);
  t.is(retriedFind.value.n, 1, "findAndModify retry answered from the recovered post-image, not applied again");
  t.is((await retryAll(writer, insert, 1)).code, 225, "an older number than the recovered one");
  const restartedCommit = await runPlain(second.engine, "admin", {
    commitTransaction: 1,
    lsid: transactional.lsid,
    txnNumber: toLong(1),
    autocommit: false,
  });
  t.is(restartedCommit.ok, 1, "the recovered transaction's commit retry answers ok");
  t.deepEqual(await committedDocuments(second.engine, "app", "c"), [{ _id: 1, n: 1 }, { _id: 2 }, { _id: 3 }]);
});

test("recovered insert retries report the recovered count", async (t) => {
  const source = engineFor(t);
  const session = new TestSession(source);
  await session.retryableWrite("app", { insert: "c", documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] });
  const target = engineFor(t);
  target.sessions.replayCommittedBatch(source.storage.oplog.after(source.storage.oplog.oldest()!.ts));
  const reply = await runPlain(target, "app", { insert: "c", documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }], lsid: session.lsid, txnNumber: toLong(1) });
  t.is(reply.n, 3);
  t.is(target.storage.collection("app", "c"), undefined, "nothing was written again");
});
