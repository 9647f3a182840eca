import test from "ava";
import { MongoBulkWriteError, MongoServerError, MongoWriteConcernError } from "mongodb";
import type { Document } from "mongodb";
import { ErrorCodes } from "../index.js";
import { useFileEngine } from "../test-support/file-engine.js";

// Gaps the drivers' specification tests showed, each checked through the real driver.
const shared = useFileEngine(test, "gaps");

type Row = { _id: number } & Document;

test("aggregate let variables are expressions evaluated once: $$name yields the value", async (t) => {
  const c = shared.client.db(shared.freshDb("let")).collection<Row>("c");
  await c.insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 3 }]);
  const out = await c
    .aggregate([{ $project: { sum: "$$sum", doc: "$$doc", text: "$$text", bigger: { $gt: ["$n", "$$sum"] } } }], {
      let: { sum: { $add: [1, 1] }, doc: { a: { $literal: 1 } }, text: { $literal: "$not.a.path" } },
    })
    .toArray();
  t.deepEqual(out, [
    { _id: 1, sum: 2, doc: { a: 1 }, text: "$not.a.path", bigger: false },
    { _id: 2, sum: 2, doc: { a: 1 }, text: "$not.a.path", bigger: true },
  ]);
  const error = await t.throwsAsync(c.aggregate([], { let: { Upper: 1 } }).toArray(), { instanceOf: MongoServerError });
  t.is(error?.code, 16867);
});

test("updateMany and findOneAndUpdate take let variables in their filter and pipeline update", async (t) => {
  const c = shared.client.db(shared.freshDb("update-let")).collection<Row>("c");
  await c.insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 2 }, { _id: 3, n: 2 }]);
  const many = await c.updateMany({ $expr: { $eq: ["$n", "$$target"] } }, [{ $set: { tag: "$$label" } }], {
    let: { target: { $add: [1, 1] }, label: { $concat: ["n", "=", "2"] } },
  });
  t.like(many, { matchedCount: 2, modifiedCount: 2 });
  t.deepEqual(await c.find({ tag: "n=2" }, { projection: { _id: 1 } }).toArray(), [{ _id: 2 }, { _id: 3 }]);
  const found = await c.findOneAndUpdate({ $expr: { $eq: ["$_id", "$$id"] } }, [{ $set: { n: { $multiply: ["$n", "$$factor"] } } }], {
    let: { id: 1, factor: { $add: [5, 5] } },
    returnDocument: "after",
  });
  t.deepEqual(found, { _id: 1, n: 10 });
});

test("$listLocalSessions lists the engine's sessions", async (t) => {
  const session = shared.client.startSession();
  try {
    await shared.client.db(shared.freshDb("sessions")).collection("c").insertOne({ a: 1 }, { session });
    const listed = await shared.client.db("admin").aggregate([{ $listLocalSessions: { allUsers: true } }]).toArray();
    const hex = (id: { buffer: Uint8Array }): string => Buffer.from(id.buffer).toString("hex");
    const mine = listed.find((entry) => hex(entry["_id"]["id"]) === hex(session.id!.id));
    t.truthy(mine);
    t.true(mine!["lastUse"] instanceof Date);
    t.is(mine!["_id"]["uid"].buffer.length, 32, "uid: SHA-256 of the (unauthenticated) user name");
    const filtered = await shared.client.db("admin").aggregate([{ $listLocalSessions: {} }, { $match: { "_id.id": session.id!.id } }, { $count: "n" }]).toArray();
    t.deepEqual(filtered, [{ n: 1 }]);
    const error = await t.throwsAsync(shared.client.db("admin").aggregate([{ $listLocalSessions: { bogus: true } }]).toArray(), { instanceOf: MongoServerError });
    t.is(error?.code, 40415);
  } finally {
    await session.endSession();
  }
});

test("$merge reports duplicate keys with keyPattern and keyValue", async (t) => {
  const db = shared.client.db(shared.freshDb("merge"));
  await db.collection<Row>("target").insertOne({ _id: 1, email: "a@x" });
  await db.collection("target").createIndex({ email: 1 }, { unique: true });
  await db.collection<Row>("source").insertOne({ _id: 2, email: "a@x" });
  const error = await t.throwsAsync(db.collection("source").aggregate([{ $merge: { into: "target" } }]).toArray(), { instanceOf: MongoServerError });
  t.is(error?.code, ErrorCodes.DuplicateKey);
  t.deepEqual(error?.["keyPattern"], { email: 1 });
  t.deepEqual(error?.["keyValue"], { email: "a@x" });
});

test("sort on updateOne/replaceOne is refused: the engine answers as the MongoDB 7.0 it declares", async (t) => {
  const c = shared.client.db(shared.freshDb("sort")).collection<Row>("c");
  await c.insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 2 }]);
  t.is((await shared.client.db("admin").command({ buildInfo: 1 }))["versionArray"][0], 7);
  for (const attempt of [() => c.updateOne({}, { $set: { x: 1 } }, { sort: { n: -1 } }), () => c.replaceOne({}, { x: 1 }, { sort: { n: -1 } })]) {
    const error = await t.throwsAsync(attempt, { instanceOf: MongoServerError });
    t.is(error?.code, 40415);
  }
  t.is(await c.countDocuments({ x: { $exists: true } }), 0);
});

test("an _id holding $-prefixed field names is refused (52); DBRef fields are allowed", async (t) => {
  const c = shared.client.db(shared.freshDb("dollar-id")).collection<Document>("c");
  for (const id of [{ $a: 1 }, { a: { $b: 1 } }]) {
    const error = await t.throwsAsync(c.insertOne({ _id: id } as Document), { instanceOf: MongoServerError });
    t.is(error?.code, ErrorCodes.DollarPrefixedFieldName);
  }
  const upsert = await t.throwsAsync(c.replaceOne({ k: 5 }, { _id: { $x: 1 } }, { upsert: true }), {
    instanceOf: MongoServerError,
  });
  t.is(upsert?.code, ErrorCodes.DollarPrefixedFieldName);
  await c.insertOne({ _id: { $ref: "other", $id: 1 } } as Document);
  t.is(await c.countDocuments(), 1);
});

test("change streams: an unknown stage is 40324; projecting out _id fails with the NonResumableChangeStreamError label", async (t) => {
  const c = shared.client.db(shared.freshDb("streams")).collection<Row>("c");
  const unknown = c.watch([{ $unsupported: "foo" }]);
  const error = await t.throwsAsync(unknown.tryNext(), { instanceOf: MongoServerError });
  t.is(error?.code, 40324);
  await unknown.close();
  const projected = c.watch([{ $project: { _id: 0 } }]);
  await projected.tryNext();
  await c.insertOne({ _id: 1 });
  const fatal = await t.throwsAsync(projected.next(), { instanceOf: MongoServerError });
  t.is(fatal?.code, ErrorCodes.ChangeStreamFatalError);
  t.true(fatal?.hasErrorLabel("NonResumableChangeStreamError"));
  await projected.close();
});

test("write concerns a single node cannot satisfy: the write applies and writeConcernError says why; malformed ones fail", async (t) => {
  const db = shared.client.db(shared.freshDb("write-concern"));
  const c = db.collection<Row>("c");
  const error = await t.throwsAsync(c.insertOne({ _id: 1 }, { writeConcern: { w: 2 } }), { instanceOf: MongoWriteConcernError });
  t.is(error?.code, ErrorCodes.UnsatisfiableWriteConcern);
  t.is(await c.countDocuments({ _id: 1 }), 1, "applied on the only member, as mongod");
  const tagged = await t.throwsAsync(c.insertMany([{ _id: 2 }], { writeConcern: { w: "eastCoast" as "majority" } }));
  t.true(tagged instanceof MongoWriteConcernError || tagged instanceof MongoBulkWriteError);
  t.is((tagged as MongoServerError).code, 79);
  await c.insertOne({ _id: 3 }, { writeConcern: { w: "majority", j: true } });
  await c.insertOne({ _id: 4 }, { writeConcern: { w: 1 } });
  const malformed = await t.throwsAsync(db.command({ insert: "c", documents: [{ _id: 5 }], writeConcern: { w: -1 } }), { instanceOf: MongoServerError });
  t.is(malformed?.code, ErrorCodes.FailedToParse);
  t.is(await c.countDocuments({ _id: 5 }), 0);

  // commitTransaction: the commit happens, the write concern error is reported.
  const session = shared.client.startSession();
  try {
    session.startTransaction({ writeConcern: { w: 3 } });
    await c.insertOne({ _id: 6 }, { session });
    const commit = await t.throwsAsync(session.commitTransaction(), { instanceOf: MongoServerError });
    t.is(commit?.code, ErrorCodes.UnsatisfiableWriteConcern);
    t.is(await c.countDocuments({ _id: 6 }), 1);
  } finally {
    await session.endSession();
  }
});
