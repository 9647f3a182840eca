import test from "ava";
import { Long } from "bson";
import type { Document } from "bson";
import type { Engine } from "../engine.js";
import type { OplogEntry } from "../storage/write-ops.js";
import { committedDocuments, runPlain, TestSession } from "../test-support/session-test-client.js";
import { engineFor } from "../test-support/in-process-engine.js";

function recordBatches(engine: Engine): OplogEntry[][] {
  const batches: OplogEntry[][] = [];
  engine.storage.oplog.subscribe((entries) => batches.push([...entries]));
  return batches;
}

const TRANSIENT = ["TransientTransactionError"];
const toLong = (n: number): Long => Long.fromNumber(n);

test("commit applies every write of the transaction in one oplog batch tagged with the session; nothing shows before", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "accounts", documents: [{ _id: "a", balance: 100 }, { _id: "b", balance: 0 }] });
  const batches = recordBatches(engine);
  const session = new TestSession(engine);
  session.startTransaction();
  t.is((await session.run("app", { update: "accounts", updates: [{ q: { _id: "a" }, u: { $inc: { balance: -30 } } }] })).nModified, 1);
  t.is((await session.run("app", { update: "accounts", updates: [{ q: { _id: "b" }, u: { $inc: { balance: 30 } } }] })).nModified, 1);
  t.is((await session.run("app", { insert: "transfers", documents: [{ _id: 1, amount: 30 }] })).n, 1);
  t.deepEqual(batches, [], "no entry reaches the oplog before commit");
  t.deepEqual(await committedDocuments(engine, "app", "accounts"), [{ _id: "a", balance: 100 }, { _id: "b", balance: 0 }]);
  t.is(engine.storage.collection("app", "transfers"), undefined, "the implicitly created collection does not exist yet");

  t.is((await session.commit()).ok, 1);
  t.is(batches.length, 1, "one atomic batch");
  t.deepEqual(batches[0]!.map((entry) => `${entry.op}:${entry.ns}`), ["u:app.accounts", "u:app.accounts", "c:app.$cmd", "i:app.transfers"]);
  for (const entry of batches[0]!) {
    t.deepEqual(entry.lsid, session.lsid);
    t.is(entry.txnNumber?.toNumber(), 1);
    t.true(entry.inTransaction, "marked as a transaction's (retryable writes carry lsid/txnNumber too)");
  }
  t.deepEqual(await committedDocuments(engine, "app", "accounts"), [{ _id: "a", balance: 70 }, { _id: "b", balance: 30 }]);
  t.deepEqual(await committedDocuments(engine, "app", "transfers"), [{ _id: 1, amount: 30 }]);
  t.is((await session.commit()).ok, 1, "a commit retry after success answers ok");
  t.is(batches.length, 1, "and applies nothing twice");
});

test("abort, or a session moving to a new transaction, discards every write", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1, n: 1 }] });
  const batches = recordBatches(engine);
  const session = new TestSession(engine);
  session.startTransaction();
  await session.run("app", { insert: "c", documents: [{ _id: 2 }] });
  await session.run("app", { delete: "c", deletes: [{ q: { _id: 1 }, limit: 1 }] });
  t.is((await session.abort()).ok, 1);
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1, n: 1 }]);
  const again = await session.abort();
  t.is(again.code, 251, "aborting twice: NoSuchTransaction");

  session.startTransaction();
  await session.run("app", { insert: "c", documents: [{ _id: 3 }] });
  session.startTransaction(); // the driver never does this mid-transaction, but the server must cope
  await session.run("app", { find: "c" });
  const previous = await engine.runCommand("admin", { commitTransaction: 1, lsid: session.lsid, txnNumber: toLong(2), autocommit: false });
  t.is(previous.code, 225, "the older transaction can no longer commit");
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1, n: 1 }]);
  t.deepEqual(batches, []);
});

test("a transaction reads its own writes through find, indexes, sorts, getMore, distinct, aggregate and findAndModify", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { createIndexes: "items", indexes: [{ key: { k: 1 }, name: "k_1" }] });
  await runPlain(engine, "app", { insert: "items", documents: [1, 2, 3, 4].map((n) => ({ _id: n, k: n, tag: n % 2 ? "odd" : "even" })) });
  const session = new TestSession(engine);
  session.startTransaction();
  await session.run("app", { update: "items", updates: [{ q: { _id: 1 }, u: { $set: { k: 40, tag: "moved" } } }] });
  await session.run("app", { delete: "items", deletes: [{ q: { _id: 2 }, limit: 1 }] });
  await session.run("app", { insert: "items", documents: [{ _id: 5, k: 0, tag: "new" }] });
  await session.run("app", { insert: "tags", documents: [{ _id: "odd", label: "Odd" }, { _id: "new", label: "New" }] });

  const ids = async (command: Document): Promise<unknown[]> =>
    ((await session.run("app", command)).cursor.firstBatch as Document[]).map((doc) => doc["_id"]);
  t.deepEqual(await ids({ find: "items", sort: { k: 1 } }), [5, 3, 4, 1], "index-provided sort becomes an in-memory sort over the overlay");
  t.deepEqual(await ids({ find: "items", filter: { k: { $gte: 3 } } , sort: { k: -1 } }), [1, 4, 3], "index bounds see the moved document");
  t.deepEqual(await ids({ find: "items", filter: { k: 1 } }), [], "the old key of an updated document no longer matches");
  t.deepEqual(await ids({ find: "items", filter: { _id: 2 } }), [], "deleted by the transaction (IDHACK)");
  t.deepEqual(await ids({ find: "items", filter: { _id: 5 } }), [5], "inserted by the transaction (IDHACK)");
  t.deepEqual(await ids({ find: "items", sort: { _id: 1 }, skip: 1, limit: 2 }), [3, 4]);

  const first = await session.run("app", { find: "items", sort: { _id: 1 }, batchSize: 2 });
  const more = await session.run("app", { getMore: first.cursor.id, collection: "items" });
  t.deepEqual([...first.cursor.firstBatch, ...more.cursor.nextBatch].map((doc: Document) => doc["_id"]), [1, 3, 4, 5]);

  t.deepEqual((await session.run("app", { distinct: "items", key: "tag" })).values, ["even", "moved", "new", "odd"]);
  const grouped = await session.run("app", {
    aggregate: "items",
    pipeline: [{ $match: { tag: { $ne: "even" } } }, { $lookup: { from: "tags", localField: "tag", foreignField: "_id", as: "t" } }, { $sort: { _id: 1 } }],
    cursor: {},
  });
  t.deepEqual(
    grouped.cursor.firstBatch.map((doc: Document) => [doc["_id"], doc["t"].map((tag: Document) => tag["label"])]),
    [[1, []], [3, ["Odd"]], [5, ["New"]]],
  );
  const counted = await session.run("app", { aggregate: "items", pipeline: [{ $match: {} }, { $group: { _id: 1, n: { $sum: 1 } } }], cursor: {} });
  t.is(counted.cursor.firstBatch[0].n, 4, "countDocuments' pipeline counts through the overlay");
  const modified = await session.run("app", { findAndModify: "items", query: { _id: 5 }, update: { $inc: { k: 1 } }, new: true });
  t.deepEqual(modified.value, { _id: 5, k: 1, tag: "new" });
  t.is((await session.commit()).ok, 1);
  t.deepEqual((await committedDocuments(engine, "app", "items")).map((doc) => doc["_id"]), [1, 3, 4, 5]);
});

test("snapshot isolation: the transaction ignores later commits of others, others never see its uncommitted writes", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1, v: "one" }, { _id: 2, v: "two" }, { _id: 3, v: "three" }] });
  const session = new TestSession(engine);
  session.startTransaction();
  const before = await session.run("app", { find: "c", sort: { _id: 1 } });
  t.is(before.cursor.firstBatch.length, 3, "the first statement takes the snapshot");
  await session.run("app", { insert: "c", documents: [{ _id: 10, v: "mine" }] });

  await runPlain(engine, "app", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { v: "changed" } } }] });
  await runPlain(engine, "app", { delete: "c", deletes: [{ q: { _id: 2 }, limit: 1 }] });
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 4, v: "four" }] });
  await runPlain(engine, "app", { insert: "other", documents: [{ _id: 1 }] });

  const inside = await session.run("app", { find: "c", sort: { _id: 1 } });
  t.deepEqual(inside.cursor.firstBatch, [{ _id: 1, v: "one" }, { _id: 2, v: "two" }, { _id: 3, v: "three" }, { _id: 10, v: "mine" }]);
  t.deepEqual((await session.run("app", { find: "c", filter: { v: "changed" } })).cursor.firstBatch, []);
  t.deepEqual((await session.run("app", { find: "other" })).cursor.firstBatch, [], "a collection filled after the snapshot looks empty");
  t.deepEqual(
    (await committedDocuments(engine, "app", "c")).map((doc) => doc["_id"]),
    [1, 3, 4],
    "others see committed data only",
  );
  t.is((await session.commit()).ok, 1);
  t.deepEqual((await committedDocuments(engine, "app", "c")).map((doc) => doc["_id"]), [1, 3, 4, 10]);
});

test("WriteConflict (112, TransientTransactionError) at the conflicting statement: first writer wins", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1, n: 0 }, { _id: 2, n: 0 }] });
  const a = new TestSession(engine);
  const b = new TestSession(engine);
  a.startTransaction();
  b.startTransaction();
  await a.run("app", { update: "c", updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }] });
  const conflict = await b.run("app", { update: "c", updates: [{ q: { _id: 1 }, u: { $inc: { n: 10 } } }] });
  t.is(conflict.ok, 0);
  t.is(conflict.code, 112);
  t.is(conflict.codeName, "WriteConflict");
  t.deepEqual(conflict.errorLabels, TRANSIENT);
  const after = await b.run("app", { find: "c" });
  t.is(after.code, 251, "the conflict aborted the second transaction");
  t.deepEqual(after.errorLabels, TRANSIENT);
  t.is((await b.commit()).code, 251);
  t.is((await a.commit()).ok, 1);
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1, n: 1 }, { _id: 2, n: 0 }]);
});

test("WriteConflict when the document changed after the snapshot, or was inserted by another session since", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1, n: 0 }] });
  const session = new TestSession(engine);
  session.startTransaction();
  t.is((await session.run("app", { find: "c", filter: { _id: 1 } })).cursor.firstBatch[0].n, 0);
  await runPlain(engine, "app", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { n: 5 } } }] });
  const stale = await session.run("app", { findAndModify: "c", query: { _id: 1 }, update: { $inc: { n: 1 } } });
  t.is(stale.code, 112);
  t.deepEqual(stale.errorLabels, TRANSIENT);

  session.startTransaction();
  await session.run("app", { find: "c" });
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 2 }] });
  const hidden = await session.run("app", { insert: "c", documents: [{ _id: 2 }] });
  t.is(hidden.code, 112, "the _id belongs to a document the snapshot cannot see");
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1, n: 5 }, { _id: 2 }]);
});

test("a commit by another session to a document the transaction wrote makes its commit fail with WriteConflict", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1, n: 0 }] });
  const session = new TestSession(engine);
  session.startTransaction();
  await session.run("app", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { n: 1 } } }] });
  await session.run("app", { insert: "c", documents: [{ _id: 2 }] });
  await runPlain(engine, "app", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { n: 99 } } }] });
  const commit = await session.commit();
  t.is(commit.code, 112);
  t.deepEqual(commit.errorLabels, TRANSIENT);
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1, n: 99 }], "all or nothing: the insert did not happen either");
  t.is((await session.commit()).code, 251);
});

test("transaction numbers: NoSuchTransaction, TransactionCommitted, TransactionTooOld, ConflictingOperationInProgress", async (t) => {
  const engine = engineFor(t);
  const session = new TestSession(engine);
  const stamp = (n: number, extra: Document = {}): Document => ({ lsid: session.lsid, txnNumber: toLong(n), autocommit: false, ...extra });
  const unknown = await engine.runCommand("app", { find: "c", ...stamp(7) });
  t.is(unknown.code, 251, "continuing a transaction that was never started");
  t.deepEqual(unknown.errorLabels, TRANSIENT);
  t.is((await engine.runCommand("admin", { commitTransaction: 1, ...stamp(7) })).code, 251);

  t.is((await engine.runCommand("app", { insert: "c", documents: [{ _id: 1 }], ...stamp(8, { startTransaction: true }) })).ok, 1);
  const restarted = await engine.runCommand("app", { insert: "c", documents: [{ _id: 2 }], ...stamp(8, { startTransaction: true }) });
  t.is(restarted.code, 117, "startTransaction twice with one number (concurrent first statements)");
  t.is((await engine.runCommand("admin", { commitTransaction: 1, ...stamp(8) })).ok, 1);
  t.is((await engine.runCommand("app", { find: "c", ...stamp(8) })).code, 256, "a statement after commit");
  t.is((await engine.runCommand("admin", { abortTransaction: 1, ...stamp(8) })).code, 256, "abort after commit");
  t.is((await engine.runCommand("admin", { commitTransaction: 1, ...stamp(8) })).ok, 1, "commit retry");
  t.is((await engine.runCommand("app", { find: "c", ...stamp(6, { startTransaction: true }) })).code, 225);
  t.is((await engine.runCommand("app", { insert: "c", documents: [{ _id: 3 }], lsid: session.lsid, txnNumber: toLong(5) })).code, 225);

  t.is((await engine.runCommand("admin", { commitTransaction: 1 })).code, 125, "outside a transaction");
  t.is((await engine.runCommand("app", { commitTransaction: 1, ...stamp(8) })).code, 13, "not on admin");
  t.is((await engine.runCommand("app", { find: "c", lsid: session.lsid, txnNumber: toLong(9), autocommit: true })).code, 72);
  t.is((await engine.runCommand("app", { find: "c", lsid: session.lsid, autocommit: false, startTransaction: true })).code, 72);
  t.is((await engine.runCommand("app", { find: "c", txnNumber: toLong(9), autocommit: false, startTransaction: true })).code, 72);
});

test("what transactions refuse: OperationNotSupportedInTransaction (263) and misplaced concerns (72)", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1 }] });
  const refused: Array<[string, Document, number]> = [
    ["app", { count: "c" }, 263],
    ["app", { listCollections: 1 }, 263],
    ["app", { listIndexes: "c" }, 263],
    ["app", { explain: { find: "c" } }, 263],
    ["app", { drop: "c" }, 263],
    ["app", { aggregate: "c", pipeline: [{ $out: "copy" }], cursor: {} }, 263],
    ["app", { aggregate: "c", pipeline: [{ $merge: { into: "copy" } }], cursor: {} }, 263],
    ["app", { aggregate: "c", pipeline: [{ $changeStream: {} }], cursor: {} }, 263],
    ["admin", { find: "c" }, 263],
    ["app", { insert: "system.js", documents: [{}] }, 263],
    ["app", { hello: 1 }, 263],
    ["app", { killCursors: "c", cursors: [] }, 263],
    ["app", { find: "c", readConcern: { level: "linearizable" } }, 72],
    ["app", { insert: "c", documents: [{}], writeConcern: { w: 1 } }, 72],
  ];
  for (const [db, command, code] of refused) {
    const session = new TestSession(engine);
    session.startTransaction();
    t.is((await session.run(db, command)).code, code, Object.keys(command)[0]);
  }
  const session = new TestSession(engine);
  session.startTransaction();
  await session.run("app", { find: "c" });
  t.is((await session.run("app", { hello: 1 })).ok, 1, "informational commands are fine after the first statement");
  t.is((await session.run("app", { find: "c", readConcern: { level: "local" } })).code, 72, "readConcern only on the first statement");
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1 }]);
});

test("DDL in a transaction: implicit and explicit collection creation, indexes on new collections only", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "existing", documents: [{ _id: 1 }] });
  const session = new TestSession(engine);
  session.startTransaction();
  t.is((await session.run("app", { create: "fresh", validator: { n: { $type: "int" } } })).ok, 1);
  t.is((await session.run("app", { createIndexes: "fresh", indexes: [{ key: { email: 1 }, name: "email_1", unique: true }] })).ok, 1);
  t.is((await session.run("app", { insert: "fresh", documents: [{ _id: 1, email: "a@x", n: 1 }] })).n, 1);
  const duplicate = await session.run("app", { insert: "fresh", documents: [{ _id: 2, email: "a@x", n: 2 }] });
  t.is(duplicate.writeErrors[0].code, 11000, "the transaction's own unique index is enforced at the statement");
  t.is(duplicate.writeErrors[0].errorLabels, undefined);
  t.is(engine.storage.collection("app", "fresh"), undefined);

  session.startTransaction();
  await session.run("app", { create: "fresh" });
  await session.run("app", { createIndexes: "fresh", indexes: [{ key: { email: 1 }, name: "email_1", unique: true }] });
  await session.run("app", { insert: "fresh", documents: [{ _id: 1, email: "a@x" }] });
  t.is((await session.run("app", { create: "fresh" })).code, 48, "already created by this transaction");
  session.startTransaction();
  await session.run("app", { create: "fresh2" });
  await session.run("app", { insert: "fresh2", documents: [{ _id: 1, email: "a@x" }] });
  t.is((await session.commit()).ok, 1);
  t.truthy(engine.storage.collection("app", "fresh2"));

  const onExisting = new TestSession(engine);
  onExisting.startTransaction();
  const indexed = await onExisting.run("app", { createIndexes: "existing", indexes: [{ key: { a: 1 }, name: "a_1" }] });
  t.is(indexed.code, 263, "new indexes on an existing collection");
  const snapshot = new TestSession(engine);
  snapshot.startTransaction();
  t.is((await snapshot.run("app", { create: "other" }, { readConcern: { level: "snapshot" } })).code, 263, "explicit DDL needs readConcern local");
  const implicit = new TestSession(engine);
  implicit.startTransaction();
  t.is((await implicit.run("app", { insert: "implicit", documents: [{ _id: 1 }] }, { readConcern: { level: "snapshot" } })).n, 1);
  t.is((await implicit.commit()).ok, 1);
  t.deepEqual(await committedDocuments(engine, "app", "implicit"), [{ _id: 1 }]);
});

test("a write error aborts the transaction and ends the batch, even an unordered one", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 5 }] });
  const session = new TestSession(engine);
  session.startTransaction();
  const reply = await session.run("app", { insert: "c", ordered: false, documents: [{ _id: 1 }, { _id: 2 }, { _id: 5 }, { _id: 5 }, { _id: 6 }] });
  t.is(reply.ok, 1);
  t.is(reply.n, 2);
  t.is(reply.writeErrors.length, 1);
  t.is(reply.writeErrors[0].index, 2);
  t.is(reply.writeErrors[0].code, 11000);
  t.is(reply.errorLabels, undefined, "a duplicate key is not transient");
  const next = await session.run("app", { find: "c" });
  t.is(next.code, 251);
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 5 }]);
  await runPlain(engine, "app", { insert: "s", documents: [{ _id: 0, x: "string" }] });
  const good = { q: { _id: 0 }, u: { $set: { x: "STRING" } } };
  const failing = { q: { _id: 0 }, u: { $inc: { x: 1 } } };
  for (const [updates, n, index] of [[[good, failing, failing], 1, 1], [[failing, good], 0, 0]] as const) {
    const updater = new TestSession(engine);
    updater.startTransaction();
    const result = await updater.run("app", { update: "s", updates, ordered: false });
    t.is(result.n, n, "statements after the failing one do not run");
    t.deepEqual(result.writeErrors.map((error: Document) => [error.index, error.code]), [[index, 14]]);
    t.is((await updater.commit()).code, 251, "an error raised before the write aborts the transaction too");
  }
  const validation = new TestSession(engine);
  await runPlain(engine, "app", { create: "strict", validator: { n: { $type: "number" } } });
  validation.startTransaction();
  t.is((await validation.run("app", { insert: "strict", documents: [{ n: "x" }] })).writeErrors[0].code, 121);
  const bad = new TestSession(engine);
  bad.startTransaction();
  t.is((await bad.run("app", { find: "c", filter: { $bogus: 1 } })).ok, 0);
  t.is((await bad.run("app", { find: "c" })).code, 251, "any command error aborts the transaction");
});

test("the lifetime limit aborts a transaction (NoSuchTransaction 251); getParameter reports it", async (t) => {
  const engine = engineFor(t, { transactionLifetimeLimitSeconds: 5 });
  const parameter = await runPlain(engine, "admin", { getParameter: 1, transactionLifetimeLimitSeconds: 1 });
  t.is(parameter.transactionLifetimeLimitSeconds, 5);
  const session = new TestSession(engine);
  session.startTransaction();
  await session.run("app", { insert: "c", documents: [{ _id: 1 }] });
  t.deepEqual(engine.sessions.sweep(Date.now() + 1000), { transactions: 0, sessions: 0 });
  t.deepEqual(engine.sessions.sweep(Date.now() + 6000), { transactions: 1, sessions: 0 });
  const late = await session.run("app", { insert: "c", documents: [{ _id: 2 }] });
  t.is(late.code, 251);
  t.deepEqual(late.errorLabels, TRANSIENT);
  t.regex(late.errmsg, /transactionLifetimeLimitSeconds/);
  t.is((await session.commit()).code, 251);
  t.is(engine.storage.collection("app", "c"), undefined);
});

test("cursors opened in a transaction read its snapshot across getMore and die with it", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 4 }] });
  const session = new TestSession(engine);
  session.startTransaction();
  const first = await session.run("app", { find: "c", batchSize: 1 });
  await runPlain(engine, "app", { delete: "c", deletes: [{ q: { _id: { $in: [3, 4] } }, limit: 0 }] });
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 9 }] });
  const rest = await session.run("app", { getMore: first.cursor.id, collection: "c", batchSize: 1 });
  t.deepEqual(rest.cursor.nextBatch, [{ _id: 2 }]);
  t.is((await session.commit()).ok, 1);
  const gone = await runPlain(engine, "app", { getMore: first.cursor.id, collection: "c" });
  t.is(gone.code, 43, "committed: the transaction's cursor is closed");
});

test("sessions: startSession, refreshSessions, endSessions and killAllSessions abort transactions and kill cursors; idle sessions expire", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", { insert: "c", documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] });
  const started = await runPlain(engine, "admin", { startSession: 1 });
  t.is(started.timeoutMinutes, 30);
  t.is(started.id.id.sub_type, 4);
  t.is((await runPlain(engine, "admin", { refreshSessions: [started.id] })).ok, 1);

  const ending = new TestSession(engine);
  const cursor = await runPlain(engine, "app", { find: "c", batchSize: 1, lsid: ending.lsid });
  ending.startTransaction();
  await ending.run("app", { insert: "c", documents: [{ _id: 4 }] });
  t.is(engine.sessions.openTransactions, 1);
  t.is((await runPlain(engine, "admin", { endSessions: [ending.lsid] })).ok, 1);
  t.is(engine.sessions.openTransactions, 0);
  t.is((await runPlain(engine, "app", { getMore: cursor.cursor.id, collection: "c" })).code, 43);
  t.is((await ending.commit()).code, 251, "the ended session's transaction is gone");

  const killed = new TestSession(engine);
  killed.startTransaction();
  await killed.run("app", { insert: "c", documents: [{ _id: 5 }] });
  t.is((await runPlain(engine, "admin", { killAllSessions: [] })).ok, 1);
  t.is(engine.sessions.size, 0);
  t.is((await killed.commit()).code, 251, "a later command on the lsid finds a fresh session with no transaction");

  const idle = new TestSession(engine);
  idle.startTransaction();
  await idle.run("app", { find: "c" });
  t.deepEqual(engine.sessions.sweep(Date.now() + 29 * 60_000), { transactions: 1, sessions: 0 });
  // Both idle sessions go: this one and the one the late commit above re-created.
  t.deepEqual(engine.sessions.sweep(Date.now() + 31 * 60_000), { transactions: 0, sessions: 2 });
  t.is(engine.sessions.size, 0);
  t.deepEqual(await committedDocuments(engine, "app", "c"), [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
});

test("unique indexes judge the transaction's own versions: freed keys are reusable, taken ones are duplicates", async (t) => {
  const engine = engineFor(t);
  await runPlain(engine, "app", {
    createIndexes: "users",
    indexes: [
      { key: { email: 1 }, name: "email_1", unique: true },
      { key: { nick: 1 }, name: "nick_1", unique: true, collation: { locale: "en", strength: 2 } },
    ],
  });
  await runPlain(engine, "app", { insert: "users", documents: [{ _id: 1, email: "a@x", nick: "Ann" }] });
  const session = new TestSession(engine);
  session.startTransaction();
  await session.run("app", { update: "users", updates: [{ q: { _id: 1 }, u: { $set: { email: "b@x", nick: "Bea" } } }] });
  t.is((await session.run("app", { insert: "users", documents: [{ _id: 2, email: "a@x", nick: "ann" }] })).n, 1, "keys the stored version held are free");
  await session.run("app", { insert: "users", documents: [{ _id: 3, email: "c@x", nick: "Cy" }] });
  await session.run("app", { update: "users", updates: [{ q: { _id: 3 }, u: { $set: { email: "d@x" } } }] });
  t.is((await session.run("app", { insert: "users", documents: [{ _id: 4, email: "c@x", nick: "Di" }] })).n, 1, "and so are keys its own update released");
  const taken = await session.run("app", { insert: "users", documents: [{ _id: 5, email: "e@x", nick: "BEA" }] });
  t.is(taken.writeErrors[0].code, 11000, "a collated key the transaction holds");
  t.deepEqual(taken.writeErrors[0].keyPattern, { nick: 1 });
  const again = new TestSession(engine);
  again.startTransaction();
  await again.run("app", { insert: "users", documents: [{ _id: 6, email: "f@x" }] });
  t.is((await again.run("app", { insert: "users", documents: [{ _id: 7, email: "f@x" }] })).writeErrors[0].code, 11000);
  t.deepEqual((await committedDocuments(engine, "app", "users")).map((doc) => doc["_id"]), [1], "both transactions aborted");
});
