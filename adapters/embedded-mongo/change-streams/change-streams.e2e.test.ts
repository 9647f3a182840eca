import test from "ava";
import { MongoClient, MongoServerError, Timestamp } from "mongodb";
import type { ChangeStream, ChangeStreamDocument, Document, ResumeToken } from "mongodb";
import mongoose from "mongoose";
import { startEmbeddedMongo } from "../index.js";
import { killChangeStreamCursors } from "../test-support/kill-change-stream-cursors.js";
import { useFileEngine } from "../test-support/file-engine.js";
import { silentLogger } from "../test-support/silent-logger.js";

// Change streams through the unmodified driver and mongoose, over the wire: the three watch()
// levels, every event type, each resume option, postBatchResumeToken, history loss, and the
// driver's transparent resume after the engine kills the stream's cursor (found via $currentOp).

const shared = useFileEngine(test, "cs");
const { freshDb } = shared;

/** The next `n` changes of an iterator-mode stream. */
async function take<T extends Document>(stream: ChangeStream<T>, n: number): Promise<ChangeStreamDocument<T>[]> {
  const out: ChangeStreamDocument<T>[] = [];
  while (out.length < n) out.push(await stream.next());
  return out;
}

test("collection.watch(): insert, update, replace, delete, drop and invalidate", async (t) => {
  const c = shared.client.db(freshDb("coll")).collection("items");
  await c.insertOne({ _id: 0 as never, seed: true });
  const stream = c.watch([], { fullDocument: "updateLookup", maxAwaitTimeMS: 20 });
  t.teardown(() => stream.close());
  await stream.tryNext(); // opens the cursor: writes from here on are seen
  await c.insertOne({ _id: 1 as never, n: 1 });
  await c.updateOne({ _id: 1 as never }, { $inc: { n: 1 }, $set: { "sub.a": true } });
  await c.replaceOne({ _id: 1 as never }, { n: 10 });
  await c.deleteOne({ _id: 1 as never });
  await c.drop();
  const changes = await take(stream, 6);
  t.deepEqual(changes.map((change) => change.operationType), ["insert", "update", "replace", "delete", "drop", "invalidate"]);
  const [insert, update, replace, del] = changes as unknown as [Document, Document, Document, Document];
  t.deepEqual(insert["fullDocument"], { _id: 1, n: 1 });
  t.deepEqual(update["updateDescription"], { updatedFields: { n: 2, sub: { a: true } }, removedFields: [], truncatedArrays: [] });
  t.is(update["fullDocument"], null, "updateLookup at read time: the document was deleted since");
  t.deepEqual(replace["fullDocument"], { _id: 1, n: 10 });
  t.deepEqual(del["documentKey"], { _id: 1 });
  t.true(insert["clusterTime"] instanceof Timestamp);
  t.true(insert["wallTime"] instanceof Date);
  t.deepEqual(stream.resumeToken, changes[5]!._id);
});

test("db.watch() and client.watch(): renames, drops, dropDatabase; only the database stream is invalidated", async (t) => {
  const name = freshDb("db");
  const db = shared.client.db(name);
  const dbStream = db.watch([], { maxAwaitTimeMS: 20 });
  const clusterStream = shared.client.watch([{ $match: { "ns.db": name } }], { maxAwaitTimeMS: 20 });
  t.teardown(() => dbStream.close());
  t.teardown(() => clusterStream.close());
  await dbStream.tryNext();
  await clusterStream.tryNext();
  await db.collection("a").insertOne({ _id: 1 as never });
  await db.collection("a").rename("b");
  await db.collection("b").drop();
  await db.collection("c").insertOne({ _id: 2 as never });
  await db.dropDatabase();
  const expected = ["insert", "rename", "drop", "insert", "drop", "dropDatabase"];
  const fromDb = await take(dbStream, 7);
  t.deepEqual(fromDb.map((change) => change.operationType), [...expected, "invalidate"]);
  const rename = fromDb[1] as Document;
  t.deepEqual([rename["ns"], rename["to"]], [{ db: name, coll: "a" }, { db: name, coll: "b" }]);
  t.deepEqual((fromDb[5] as Document)["ns"], { db: name });
  const fromCluster = await take(clusterStream, 6);
  t.deepEqual(fromCluster.map((change) => change.operationType), expected);
  await db.collection("d").insertOne({ _id: 3 as never });
  t.is((await clusterStream.next()).operationType, "insert", "the cluster stream goes on after dropDatabase");
});

test("mongoose Model.watch(): every event type, and a transparent resume after the engine kills the cursor", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: freshDb("mongoose") }).asPromise();
  t.teardown(() => connection.close());
  const Flag = connection.model("Flag", new mongoose.Schema({ key: String, on: Boolean }));
  await Flag.createCollection();
  const stream = Flag.watch([], { fullDocument: "updateLookup" });
  t.teardown(() => stream.close());
  const changes: Document[] = [];
  const arrived: Array<() => void> = [];
  stream.on("change", (change: Document) => {
    changes.push(change);
    arrived.shift()?.();
  });
  const until = async (count: number): Promise<void> => {
    while (changes.length < count) await new Promise<void>((resolve) => arrived.push(resolve));
  };
  await new Promise((resolve) => stream.once("ready", resolve));
  const flag = await Flag.create({ key: "beta", on: false });
  await until(1);
  t.true((await killChangeStreamCursors(shared.client, `${connection.name}.flags`)) >= 1, "the cursor is listed by $currentOp");
  // Written while the stream has no server cursor: the driver's resume must still deliver them.
  await Flag.updateOne({ _id: flag._id }, { $set: { on: true } });
  await Flag.replaceOne({ _id: flag._id }, { key: "beta", on: false });
  await Flag.deleteOne({ _id: flag._id });
  await until(4);
  t.true((await killChangeStreamCursors(shared.client, `${connection.name}.flags`)) >= 1);
  await Flag.collection.drop();
  await until(6);
  t.deepEqual(changes.map((change) => change["operationType"]), ["insert", "update", "replace", "delete", "drop", "invalidate"]);
  t.deepEqual(changes[1]!["updateDescription"]["updatedFields"], { on: true });
  t.deepEqual(new Set(changes.map((change) => change["_id"]["_data"])).size, 6, "no event twice");
});

test("a killed cursor (found via $currentOp) is resumed transparently with no lost or repeated events", async (t) => {
  const name = freshDb("kill");
  const c = shared.client.db(name).collection("events");
  const stream = c.watch([], { maxAwaitTimeMS: 50 });
  t.teardown(() => stream.close());
  await stream.tryNext();
  const seen: number[] = [];
  for (let round = 0; round < 5; round++) {
    await c.insertMany([{ n: round * 2 }, { n: round * 2 + 1 }]);
    t.is(await killChangeStreamCursors(shared.client, `${name}.events`), 1);
    for (const change of await take(stream, 2)) seen.push((change as Document)["fullDocument"]["n"]);
  }
  t.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test("resume options through the driver: resumeAfter, startAfter an invalidate, startAtOperationTime, and the postBatchResumeToken of empty batches", async (t) => {
  const c = shared.client.db(freshDb("resume")).collection("c");
  const stream = c.watch([], { maxAwaitTimeMS: 20 });
  t.teardown(() => stream.close());
  t.is(await stream.tryNext(), null);
  const emptyToken = stream.resumeToken as ResumeToken;
  t.truthy(emptyToken, "an empty batch's postBatchResumeToken is the resume token");
  await c.insertOne({ n: 1 });
  await c.insertOne({ n: 2 });
  await c.drop();
  await c.insertOne({ n: 3 });
  const [one, two, , invalidate] = await take(stream, 4);
  t.is(invalidate!.operationType, "invalidate");
  const resumeWith = async (options: Document): Promise<unknown[]> => {
    const resumed = c.watch([], { ...options, maxAwaitTimeMS: 20 });
    try {
      const out: unknown[] = [];
      for (let change = await resumed.tryNext(); change; change = await resumed.tryNext()) {
        out.push((change as Document)["fullDocument"]?.["n"] ?? change.operationType);
        if (change.operationType === "invalidate") break;
      }
      return out;
    } finally {
      await resumed.close();
    }
  };
  t.deepEqual(await resumeWith({ resumeAfter: emptyToken }), [1, 2, "drop", "invalidate"]);
  t.deepEqual(await resumeWith({ resumeAfter: one!._id }), [2, "drop", "invalidate"]);
  t.deepEqual(await resumeWith({ startAfter: two!._id }), ["drop", "invalidate"]);
  t.deepEqual(await resumeWith({ startAfter: invalidate!._id }), [3]);
  const operationTime = (await shared.client.db("admin").command({ ping: 1 }))["operationTime"] as Timestamp;
  await c.insertOne({ n: 4 });
  t.deepEqual(await resumeWith({ startAtOperationTime: operationTime }), [4]);
  const error = await t.throwsAsync(resumeWith({ resumeAfter: invalidate!._id }), { instanceOf: MongoServerError });
  t.is(error.code, 260);
});

test("history lost: resuming from a token older than the bounded history fails with 286", async (t) => {
  const small = await startEmbeddedMongo({ logger: silentLogger, oplogCapacity: 10 });
  const smallClient = await new MongoClient(small.uri).connect();
  t.teardown(async () => {
    await smallClient.close();
    await small.stop();
  });
  const c = smallClient.db("app").collection("c");
  const stream = c.watch([], { maxAwaitTimeMS: 20 });
  await stream.tryNext();
  await c.insertOne({ n: 0 });
  const token = (await stream.next())._id;
  await stream.close();
  for (let i = 1; i <= 20; i++) await c.insertOne({ n: i });
  const resumed = c.watch([], { resumeAfter: token });
  const error = await t.throwsAsync(resumed.tryNext(), { instanceOf: MongoServerError });
  t.is(error.code, 286);
  await resumed.close();
});

test("hostile change stream options fail with the server's codes", async (t) => {
  const c = shared.client.db(freshDb("hostile")).collection("c");
  const codeOf = async (pipeline: Document[], options: Document): Promise<number | undefined> => {
    const stream = c.watch(pipeline, options);
    try {
      const error = await t.throwsAsync(stream.tryNext(), { instanceOf: MongoServerError });
      return error.code as number;
    } finally {
      await stream.close();
    }
  };
  t.is(await codeOf([], { fullDocument: "everything" }), 2);
  t.is(await codeOf([], { resumeAfter: { _data: "garbage" } }), 260);
  t.is(await codeOf([], { resumeAfter: { nope: 1 } }), 40647);
  t.is(await codeOf([], { startAtOperationTime: "yesterday" }), 14);
  t.is(await codeOf([{ $group: { _id: "$operationType" } }], {}), 20);
  t.is(await codeOf([], { allChangesForCluster: true }), 72);
});

test("transactions: a committed transaction's writes appear together at commit, an aborted one's never", async (t) => {
  const c = shared.client.db(freshDb("txn")).collection("c");
  await c.insertOne({ n: 0 });
  const stream = c.watch([], { maxAwaitTimeMS: 20 });
  t.teardown(() => stream.close());
  t.is(await stream.tryNext(), null);
  const session = shared.client.startSession();
  t.teardown(() => session.endSession());
  session.startTransaction();
  await c.insertOne({ n: 1 }, { session });
  await c.updateOne({ n: 0 }, { $set: { touched: true } }, { session });
  t.is(await stream.tryNext(), null, "nothing before the commit");
  await session.commitTransaction();
  const committed = await take(stream, 2);
  t.deepEqual(committed.map((change) => change.operationType), ["insert", "update"]);
  session.startTransaction();
  await c.insertOne({ n: 2 }, { session });
  await session.abortTransaction();
  await c.insertOne({ n: 3 });
  t.is(((await stream.next()) as Document)["fullDocument"]["n"], 3, "the aborted insert never shows");
});
