import test from "ava";
import { Long, UUID } from "bson";
import { MongoServerError } from "mongodb";
import type { ChangeStreamDocument, Document } from "mongodb";
import mongoose from "mongoose";
import { opMsg, RawWireClient } from "../test-support/raw-wire-client.js";
import { useFileEngine } from "../test-support/file-engine.js";

// One engine for the file; every test uses its own database so tests can run concurrently.
const shared = useFileEngine(test, "txn");
const { freshDb } = shared;

test("mongoose session.withTransaction commits; a throwing callback aborts everything across collections", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: freshDb("mongoose") }).asPromise();
  t.teardown(() => connection.close());
  const Order = connection.model("Order", new mongoose.Schema({ item: String, qty: Number }));
  const Stock = connection.model("Stock", new mongoose.Schema({ item: { type: String, unique: true }, qty: Number }));
  await Stock.init();
  await Stock.create({ item: "apple", qty: 5 });
  const session = await connection.startSession();
  t.teardown(() => session.endSession());
  const order = (qty: number) =>
    session.withTransaction(async () => {
      await Order.create([{ item: "apple", qty }], { session });
      const stock = await Stock.findOneAndUpdate({ item: "apple" }, { $inc: { qty: -qty } }, { session, returnDocument: "after" });
      if (stock!.qty! < 0) throw new Error("out of stock");
    });
  await order(3);
  await t.throwsAsync(order(10), { message: "out of stock" });
  t.is((await Stock.findOne({ item: "apple" }).lean())!.qty, 2);
  t.deepEqual((await Order.find().lean()).map((row) => row.qty), [3]);
  const duplicate = await t.throwsAsync(
    connection.transaction(async (inner) => {
      await Stock.create([{ item: "pear", qty: 1 }], { session: inner });
      await Stock.create([{ item: "apple", qty: 1 }], { session: inner });
    }),
  );
  t.is((duplicate as MongoServerError).code, 11000, "a duplicate key inside the transaction fails it, and it is not retried");
  t.is(await Stock.countDocuments({ item: "pear" }), 0, "the pear insert went with it");
});

test("isolation through the driver: uncommitted writes are private, later commits of others invisible", async (t) => {
  const c = shared.client.db(freshDb("isolation")).collection("c");
  await c.insertMany([{ _id: 1, v: "a" } as Document, { _id: 2, v: "b" }]);
  const session = shared.client.startSession();
  t.teardown(() => session.endSession());
  session.startTransaction();
  t.is((await c.find({}, { session }).toArray()).length, 2);
  await c.insertOne({ _id: 3, v: "mine" } as Document, { session });
  await c.updateOne({ _id: 1 } as Document, { $set: { v: "theirs" } });
  await c.insertOne({ _id: 4, v: "theirs" } as Document);
  t.deepEqual((await c.find({}, { session }).sort({ _id: 1 }).toArray()).map((doc) => doc["v"]), ["a", "b", "mine"]);
  t.deepEqual((await c.find().sort({ _id: 1 }).toArray()).map((doc) => doc["v"]), ["theirs", "b", "theirs"]);
  await session.commitTransaction();
  t.deepEqual((await c.find().sort({ _id: 1 }).toArray()).map((doc) => doc["v"]), ["theirs", "b", "mine", "theirs"]);
});

test("WriteConflict 112 carries TransientTransactionError and withTransaction's automatic retry succeeds", async (t) => {
  const c = shared.client.db(freshDb("conflict")).collection("counters");
  await c.insertOne({ _id: "hits", n: 0 } as Document);
  const session = shared.client.startSession();
  t.teardown(() => session.endSession());
  let attempts = 0;
  const seen: Array<{ code: number | undefined; transient: boolean }> = [];
  await session.withTransaction(async () => {
    attempts += 1;
    const current = await c.findOne({ _id: "hits" } as Document, { session });
    // The first attempt loses a race: another client commits to the document after our snapshot.
    if (attempts === 1) await c.updateOne({ _id: "hits" } as Document, { $inc: { n: 100 } });
    try {
      await c.updateOne({ _id: "hits" } as Document, { $set: { n: current!["n"] + 1 } }, { session });
    } catch (error) {
      const serverError = error as MongoServerError;
      seen.push({ code: serverError.code as number | undefined, transient: serverError.hasErrorLabel("TransientTransactionError") });
      throw error;
    }
  });
  t.is(attempts, 2);
  t.deepEqual(seen, [{ code: 112, transient: true }]);
  t.is((await c.findOne({ _id: "hits" } as Document))!["n"], 101, "the retry read the other client's commit: no lost update");
});

test("two open transactions: the second writer of a document gets WriteConflict, the first commits", async (t) => {
  const c = shared.client.db(freshDb("writers")).collection("c");
  await c.insertOne({ _id: 1, owner: "nobody" } as Document);
  const first = shared.client.startSession();
  const second = shared.client.startSession();
  t.teardown(async () => {
    await first.endSession();
    await second.endSession();
  });
  first.startTransaction();
  second.startTransaction();
  await c.updateOne({ _id: 1 } as Document, { $set: { owner: "first" } }, { session: first });
  const error = await t.throwsAsync(c.updateOne({ _id: 1 } as Document, { $set: { owner: "second" } }, { session: second }), { instanceOf: MongoServerError });
  t.is(error.code, 112);
  t.true(error.hasErrorLabel("TransientTransactionError"));
  await second.abortTransaction();
  await first.commitTransaction();
  t.is((await c.findOne({ _id: 1 } as Document))!["owner"], "first");
});

// Serial: sweeping with a clock in the future would also expire the other tests' transactions.
test.serial("NoSuchTransaction 251 (TransientTransactionError) once the server aborted the transaction", async (t) => {
  const c = shared.client.db(freshDb("expired")).collection("c");
  const session = shared.client.startSession();
  t.teardown(() => session.endSession());
  session.startTransaction();
  await c.insertOne({ a: 1 }, { session });
  // The lifetime limit (60 s) passes: simulated by sweeping with a clock two minutes ahead.
  t.is(shared.server.engine.sessions.sweep(Date.now() + 120_000).transactions, 1);
  const error = await t.throwsAsync(c.insertOne({ a: 2 }, { session }), { instanceOf: MongoServerError });
  t.is(error.code, 251);
  t.is(error.codeName, "NoSuchTransaction");
  t.true(error.hasErrorLabel("TransientTransactionError"));
  await session.abortTransaction();
  t.is(await c.countDocuments(), 0);
});

test("a retryable write sent twice over the wire with one lsid and txnNumber inserts once", async (t) => {
  const db = freshDb("retry");
  const raw = await RawWireClient.connect(shared.server.port);
  t.teardown(() => raw.destroy());
  // Built with the bson package the raw client serializes with (the driver may bundle another copy).
  const lsid = { id: new UUID() };
  const insert = { insert: "c", documents: [{ _id: 1, note: "once" }], ordered: true, lsid, txnNumber: Long.fromNumber(1), $db: db };
  raw.send(opMsg(insert, { requestId: 1 }));
  const first = await raw.nextReply();
  raw.send(opMsg(insert, { requestId: 2 }));
  const second = await raw.nextReply();
  t.is(first["n"], 1);
  t.is(second["n"], 1);
  t.is(second["ok"], 1);
  t.is(second["writeErrors"], undefined, "recognised as a retry, not a duplicate key");
  t.is(await shared.client.db(db).collection("c").countDocuments(), 1);
  raw.send(opMsg({ ...insert, txnNumber: Long.fromNumber(0), documents: [{ _id: 2 }] }, { requestId: 3 }));
  t.is((await raw.nextReply())["code"], 225);
});

test("change streams see a transaction's writes only at commit, all together; its oplog entries carry the session", async (t) => {
  const c = shared.client.db(freshDb("events")).collection("c");
  await c.insertOne({ _id: 0 } as Document);
  const stream = c.watch([], { maxAwaitTimeMS: 50 });
  t.teardown(() => stream.close());
  await stream.tryNext(); // opens the stream server-side before the transaction starts
  const session = shared.client.startSession();
  t.teardown(() => session.endSession());
  session.startTransaction();
  await c.insertOne({ _id: 1 } as Document, { session });
  await c.updateOne({ _id: 0 } as Document, { $set: { touched: true } }, { session });
  t.is(await stream.tryNext(), null, "nothing before commit");
  await session.commitTransaction();
  const events: ChangeStreamDocument[] = [];
  while (events.length < 2) {
    const event = await stream.tryNext();
    if (event) events.push(event);
  }
  t.deepEqual(events.map((event) => event.operationType), ["insert", "update"]);
  const [insertTs, updateTs] = events.map((event) => event.clusterTime!);
  t.true(insertTs!.add(1).equals(updateTs!), "one commit: consecutive timestamps");
  const oplog = shared.server.engine.storage.oplog;
  const committed = oplog.after(oplog.oldest()!.ts).filter((entry) => entry.ts.equals(insertTs!) || entry.ts.equals(updateTs!));
  t.is(committed.length, 2);
  t.true(committed.every((entry) => entry.lsid !== undefined && entry.txnNumber !== undefined), "tagged with the session");
});
