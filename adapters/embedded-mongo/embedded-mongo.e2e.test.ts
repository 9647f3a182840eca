import test from "ava";
import { once } from "node:events";
import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, MongoClient, MongoServerError, Timestamp } from "mongodb";
import type { Document } from "mongodb";
import mongoose from "mongoose";
import { startEmbeddedMongo } from "./index.js";
import { useFileEngine } from "./test-support/file-engine.js";

// One engine for the file; every test uses its own database so tests can run concurrently.
const shared = useFileEngine(test, "e2e");
const { freshDb } = shared;

test("the driver connects with directConnection and with the replica-set URI", async (t) => {
  for (const uri of [shared.server.uri, `mongodb://127.0.0.1:${shared.server.port}/?replicaSet=${shared.server.replicaSetName}`]) {
    const other = await new MongoClient(uri, { serverSelectionTimeoutMS: 5000 }).connect();
    try {
      const hello = await other.db("admin").command({ hello: 1 });
      t.true(hello.isWritablePrimary);
      t.is(hello.setName, shared.server.replicaSetName);
      t.deepEqual(hello.hosts, [`127.0.0.1:${shared.server.port}`]);
      t.is(hello.me, `127.0.0.1:${shared.server.port}`);
      t.is(hello.maxWireVersion, 21);
      t.is(hello.logicalSessionTimeoutMinutes, 30);
      const collection = other.db(freshDb("uri")).collection("c");
      await collection.insertOne({ x: 1 });
      t.is((await collection.findOne({ x: 1 }))?.x, 1);
    } finally {
      await other.close();
    }
  }
});

test("CRUD through the driver", async (t) => {
  const c = shared.client.db(freshDb("crud")).collection("items");
  const inserted = await c.insertMany([{ name: "a", n: 1 }, { name: "b", n: 2 }, { name: "c", n: 3 }]);
  t.is(inserted.insertedCount, 3);
  t.deepEqual((await c.find({ n: { $gte: 2 } }).sort({ n: -1 }).toArray()).map((d) => d.name), ["c", "b"]);
  const updated = await c.updateMany({ n: { $lt: 3 } }, { $inc: { n: 10 }, $set: { touched: true } });
  t.is(updated.matchedCount, 2);
  t.is(updated.modifiedCount, 2);
  const upserted = await c.updateOne({ name: "z" }, { $set: { n: 0 } }, { upsert: true });
  t.truthy(upserted.upsertedId);
  t.is((await c.findOne({ name: "z" }))?.n, 0);
  const replaced = await c.replaceOne({ name: "c" }, { name: "c2" });
  t.is(replaced.modifiedCount, 1);
  t.is((await c.findOne({ name: "c2" }))?.n, undefined);
  t.is((await c.deleteMany({ touched: true })).deletedCount, 2);
  t.is(await c.countDocuments(), 2);
  t.is(await c.estimatedDocumentCount(), 2);
  t.deepEqual((await c.distinct("name")).sort(), ["c2", "z"]);
});

test("ordered and unordered inserts report duplicate keys with index, keyPattern and keyValue", async (t) => {
  const c = shared.client.db(freshDb("dup")).collection("users");
  await c.createIndex({ email: 1 }, { unique: true });
  await c.insertOne({ email: "a@x" });
  const ordered = await t.throwsAsync(c.insertMany([{ email: "b@x" }, { email: "a@x" }, { email: "c@x" }], { ordered: true }));
  t.is((ordered as unknown as { code: number }).code, 11000);
  t.is(await c.countDocuments(), 2);
  const unordered = await t.throwsAsync(c.insertMany([{ email: "a@x" }, { email: "d@x" }, { email: "b@x" }], { ordered: false }));
  const writeErrors = (unordered as unknown as { writeErrors: Array<{ index: number; code: number }> }).writeErrors;
  t.deepEqual(writeErrors.map((e) => [e.index, e.code]), [[0, 11000], [2, 11000]]);
  t.is(await c.countDocuments(), 3);
  const single = await t.throwsAsync(c.insertOne({ email: "d@x" }), { instanceOf: MongoServerError });
  t.is(single.code, 11000);
  t.deepEqual((single as MongoServerError).keyPattern, { email: 1 });
  t.deepEqual((single as MongoServerError).keyValue, { email: "d@x" });
  t.regex(single.message, /^E11000 duplicate key error collection: .*\.users index: email_1 dup key: \{ email: "d@x" \}$/);
});

test("error codes 26, 43, 48 and 59", async (t) => {
  const db = shared.client.db(freshDb("codes"));
  const missing = await t.throwsAsync(db.collection("nope").listIndexes().toArray(), { instanceOf: MongoServerError });
  t.is(missing.code, 26);
  await db.createCollection("there");
  const exists = await t.throwsAsync(db.createCollection("there"), { instanceOf: MongoServerError });
  t.is(exists.code, 48);
  const unknown = await t.throwsAsync(db.command({ frobnicate: 1 }), { instanceOf: MongoServerError });
  t.is(unknown.code, 59);
  t.regex(unknown.message, /no such command: 'frobnicate'/);
  const notFound = await t.throwsAsync(db.command({ getMore: Long.fromNumber(12345), collection: "there" }), { instanceOf: MongoServerError });
  t.is(notFound.code, 43);
  const invalid = await t.throwsAsync(db.collection("bad$name").insertOne({}), { instanceOf: MongoServerError });
  t.is(invalid.code, 73);
});

test("a cursor returns every document across getMore batches, and a killed cursor is gone (43)", async (t) => {
  const db = shared.client.db(freshDb("cursor"));
  const c = db.collection("many");
  await c.insertMany(Array.from({ length: 250 }, (_, i) => ({ i })));
  const seen: number[] = [];
  for await (const doc of c.find({}, { batchSize: 7 }).sort({ i: 1 })) seen.push(doc.i as number);
  t.deepEqual(seen, Array.from({ length: 250 }, (_, i) => i));
  // Ids are random 63-bit longs: keep them Long, or one below 2^53 comes back as a number.
  const first = await db.command({ find: "many", filter: {}, batchSize: 5 }, { promoteLongs: false });
  const id = first.cursor.id as Long;
  t.false(id.isZero());
  const more = await db.command({ getMore: id, collection: "many", batchSize: 5 });
  t.is(more.cursor.nextBatch.length, 5);
  const killed = await db.command({ killCursors: "many", cursors: [id] });
  t.deepEqual(killed.cursorsKilled.map(String), [id.toString()]);
  const gone = await t.throwsAsync(db.command({ getMore: id, collection: "many" }), { instanceOf: MongoServerError });
  t.is(gone.code, 43);
});

test("BSON types round-trip unchanged and $type distinguishes them", async (t) => {
  const c = shared.client.db(freshDb("types")).collection<{ _id: number } & Document>("values");
  const big = Long.fromString("9007199254740993");
  const doc = {
    _id: 1,
    int: new Int32(7),
    long: big,
    double: new Double(7),
    decimal: Decimal128.fromString("1.10"),
    binary: new Binary(Buffer.from([1, 2, 3]), 4),
    ts: new Timestamp({ t: 5, i: 6 }),
    regex: new BSONRegExp("^ab", "i"),
    date: new Date(1700000000000),
    nested: { arr: [new Int32(1), new Double(1.5)] },
  };
  await c.insertOne(doc);
  const raw = await c.findOne({ _id: 1 }, { promoteValues: false, bsonRegExp: true, promoteLongs: false });
  t.truthy(raw);
  t.true(raw!.int instanceof Int32);
  t.true(raw!.long instanceof Long);
  t.is((raw!.long as Long).toString(), "9007199254740993");
  t.true(raw!.double instanceof Double);
  t.is((raw!.decimal as Decimal128).toString(), "1.10");
  t.is((raw!.binary as Binary).sub_type, 4);
  t.true((raw!.ts as Timestamp).equals(new Timestamp({ t: 5, i: 6 })));
  t.is((raw!.regex as BSONRegExp).pattern, "^ab");
  for (const [field, type] of [["int", "int"], ["long", "long"], ["double", "double"], ["decimal", "decimal"], ["binary", "binData"], ["ts", "timestamp"], ["regex", "regex"], ["date", "date"]] as const) {
    t.is(await c.countDocuments({ [field]: { $type: type } }), 1, `${field} is ${type}`);
  }
  t.is(await c.countDocuments({ long: { $gt: Long.fromString("9007199254740992") } }), 1);
  t.is(await c.countDocuments({ decimal: { $gt: Decimal128.fromString("1.09"), $lt: new Double(1.11) } }), 1);
});

test("explain shows an index scan touching far fewer documents than a collection scan", async (t) => {
  const c = shared.client.db(freshDb("plan")).collection("people");
  await c.insertMany(Array.from({ length: 2000 }, (_, i) => ({ i, email: `u${i}@x`, city: `c${i % 10}` })));
  await c.createIndex({ email: 1 });
  const indexed = await c.find({ email: "u1234@x" }).explain("executionStats");
  const scanned = await c.find({ city: "c3", i: 1234 }).explain("executionStats");
  t.is(indexed.queryPlanner.winningPlan.inputStage.stage, "IXSCAN");
  t.is(indexed.queryPlanner.winningPlan.inputStage.indexName, "email_1");
  t.is(indexed.executionStats.nReturned, 1);
  t.is(indexed.executionStats.totalDocsExamined, 1);
  t.is(scanned.queryPlanner.winningPlan.stage, "COLLSCAN");
  t.is(scanned.executionStats.totalDocsExamined, 2000);
  const hinted = await t.throwsAsync(c.find({ email: "x" }).hint("nope_1").toArray(), { instanceOf: MongoServerError });
  t.is(hinted.code, 2);
});

test("mongoose: models, indexes via init/syncIndexes, CRUD, populate, findOneAndUpdate, counts, distinct", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: freshDb("mongoose") }).asPromise();
  try {
    const authorSchema = new mongoose.Schema({ name: { type: String, required: true, unique: true } });
    const bookSchema = new mongoose.Schema({
      title: String,
      author: { type: mongoose.Schema.Types.ObjectId, ref: "Author" },
      year: Number,
      isbn: { type: String, sparse: true, unique: true },
      tags: [String],
    });
    bookSchema.index({ author: 1, year: -1 });
    const Author = connection.model("Author", authorSchema);
    const Book = connection.model("Book", bookSchema);
    await Author.init();
    await Book.init();
    const indexNames = (await Book.listIndexes()).map((index) => index.name).sort();
    t.deepEqual(indexNames, ["_id_", "author_1_year_-1", "isbn_1"]);
    bookSchema.index({ title: 1 });
    const Book2 = connection.model("Book2", bookSchema, "books");
    await Book2.syncIndexes();
    t.true((await Book.listIndexes()).some((index) => index.name === "title_1"));

    const ada = await Author.create({ name: "Ada" });
    await Book.create([
      { title: "One", author: ada._id, year: 2001, tags: ["x", "y"] },
      { title: "Two", author: ada._id, year: 2002, tags: ["y"] },
      { title: "Three", author: ada._id, year: 2003, isbn: "123" },
    ]);
    // Two books without isbn are fine: the unique index is sparse.
    t.is(await Book.countDocuments({ author: ada._id }), 3);
    t.is(await Book.estimatedDocumentCount(), 3);
    t.deepEqual((await Book.distinct("tags")).sort(), ["x", "y"]);
    const populated = await Book.findOne({ title: "Two" }).populate("author").lean();
    t.is((populated?.author as unknown as { name: string }).name, "Ada");
    const duplicate = await t.throwsAsync(Author.create({ name: "Ada" }));
    t.is((duplicate as unknown as { code: number }).code, 11000);
    t.deepEqual((duplicate as unknown as { keyValue: Document }).keyValue, { name: "Ada" });

    const bumped = await Book.findOneAndUpdate({ title: "One" }, { $inc: { year: 1 }, $push: { tags: "z" } }, { returnDocument: "after" }).lean();
    t.is(bumped?.year, 2002);
    t.deepEqual(bumped?.tags, ["x", "y", "z"]);
    const created = await Book.findOneAndUpdate({ title: "Four" }, { $setOnInsert: { year: 2004 } }, { upsert: true, returnDocument: "after" }).lean();
    t.is(created?.year, 2004);
    const doc = await Book.findOne({ title: "Two" });
    doc!.year = 1999;
    await doc!.save();
    t.is((await Book.findById(doc!._id).lean())?.year, 1999);
    t.is((await Book.deleteMany({ year: { $lt: 2000 } })).deletedCount, 1);
    const titles: string[] = [];
    for await (const book of Book.find().sort({ title: 1 }).batchSize(1).cursor()) titles.push(book.title!);
    t.deepEqual(titles, ["Four", "One", "Three"]);
    t.deepEqual(await Book.find({ tags: "y" }).select({ title: 1, _id: 0 }).sort({ title: 1 }).lean(), [{ title: "One" }]);
  } finally {
    await connection.close();
  }
});

test("mongoose: compound unique, partial and TTL indexes behave like MongoDB", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: freshDb("indexes") }).asPromise();
  try {
    const schema = new mongoose.Schema({ org: String, slug: String, active: Boolean, expiresAt: Date });
    schema.index({ org: 1, slug: 1 }, { unique: true });
    schema.index({ slug: 1 }, { unique: true, partialFilterExpression: { active: true }, name: "active_slug" });
    schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    const Page = connection.model("Page", schema);
    await Page.init();
    await Page.create({ org: "a", slug: "home", active: false });
    await Page.create({ org: "b", slug: "home", active: false });
    const compound = await t.throwsAsync(Page.create({ org: "a", slug: "home" }));
    t.is((compound as unknown as { code: number }).code, 11000);
    t.deepEqual((compound as unknown as { keyPattern: Document }).keyPattern, { org: 1, slug: 1 });
    await Page.create({ org: "c", slug: "home", active: true });
    const partial = await t.throwsAsync(Page.create({ org: "d", slug: "home", active: true }));
    t.deepEqual((partial as unknown as { keyPattern: Document }).keyPattern, { slug: 1 });
    await Page.create({ org: "e", slug: "old", expiresAt: new Date(Date.now() - 1000) });
    await Page.create({ org: "f", slug: "new", expiresAt: new Date(Date.now() + 3_600_000) });
    t.is(shared.server.engine.sweepTtl() >= 1, true);
    t.deepEqual((await Page.find({ expiresAt: { $exists: true } }).lean()).map((page) => page.slug), ["new"]);
  } finally {
    await connection.close();
  }
});

test("aggregate: $group, $lookup across collections, $out replaces atomically, $merge writes through", async (t) => {
  const db = shared.client.db(freshDb("agg"));
  const orders = db.collection("orders");
  const customers = db.collection("customers");
  await customers.insertMany([{ _id: "ann", city: "Oslo" }, { _id: "bob", city: "Rome" }] as never[]);
  await orders.insertMany([
    { cust: "ann", amount: new Int32(5) },
    { cust: "ann", amount: new Int32(7) },
    { cust: "bob", amount: new Double(2.5) },
  ]);
  const totals = await orders
    .aggregate([{ $group: { _id: "$cust", total: { $sum: "$amount" }, n: { $sum: 1 } } }, { $sort: { _id: 1 } }], { promoteValues: false })
    .toArray();
  t.deepEqual(totals.map((row) => [row._id, String(row.total), row.total._bsontype]), [["ann", "12", "Int32"], ["bob", "2.5", "Double"]]);
  const joined = await orders
    .aggregate([
      { $match: { cust: "bob" } },
      { $lookup: { from: "customers", localField: "cust", foreignField: "_id", as: "customer" } },
      { $project: { _id: 0, city: { $first: "$customer.city" } } },
    ])
    .toArray();
  t.deepEqual(joined, [{ city: "Rome" }]);

  const report = db.collection("report");
  await report.insertOne({ stale: true });
  await report.createIndex({ total: -1 }, { name: "by_total" });
  const out = await orders.aggregate([{ $group: { _id: "$cust", total: { $sum: "$amount" } } }, { $out: "report" }]).toArray();
  t.deepEqual(out, []);
  t.deepEqual((await report.find().sort({ _id: 1 }).toArray()).map((row) => row._id), ["ann", "bob"]);
  t.true((await report.listIndexes().toArray()).some((index) => index.name === "by_total"), "$out keeps the target's indexes");
  // A failing $out (duplicate _id) leaves the target untouched.
  const failed = await t.throwsAsync(orders.aggregate([{ $project: { _id: "same" } }, { $out: "report" }]).toArray(), { instanceOf: MongoServerError });
  t.is(failed.code, 11000);
  t.is(await report.countDocuments(), 2);

  await orders.aggregate([{ $match: { cust: "ann" } }, { $group: { _id: "$cust", orders: { $sum: 1 } } }, { $merge: { into: "report", whenMatched: "merge" } }]).toArray();
  t.deepEqual(await report.findOne({ _id: "ann" } as never), { _id: "ann", total: 12, orders: 2 });
  await orders.aggregate([{ $project: { _id: "$cust", extra: "x" } }, { $merge: { into: "report", whenMatched: "keepExisting", whenNotMatched: "discard" } }]).toArray();
  t.is(await report.countDocuments(), 2);
  const mergeFail = await t.throwsAsync(
    orders.aggregate([{ $project: { _id: "zed" } }, { $limit: 1 }, { $merge: { into: "report", whenNotMatched: "fail" } }]).toArray(),
    { instanceOf: MongoServerError },
  );
  t.is(mergeFail.code, 13113);
  const explained = await orders.aggregate([{ $match: { cust: "ann" } }, { $group: { _id: null, n: { $sum: 1 } } }]).explain("queryPlanner");
  t.truthy(explained.stages?.[0]?.$cursor?.queryPlanner?.winningPlan);
});

test("the driver's streaming monitor (awaitable exhaust hello) keeps succeeding", async (t) => {
  const monitored = new MongoClient(`mongodb://127.0.0.1:${shared.server.port}/?replicaSet=${shared.server.replicaSetName}`, { heartbeatFrequencyMS: 500 });
  const failures: unknown[] = [];
  monitored.on("serverHeartbeatFailed", (event) => failures.push(event.failure));
  try {
    await monitored.connect();
    // Wait for two streamed (awaited) heartbeats: the server held each hello and answered with moreToCome.
    for (let seen = 0; seen < 2; ) {
      const [event] = await once(monitored, "serverHeartbeatSucceeded");
      if ((event as { awaited: boolean }).awaited) seen += 1;
    }
    t.deepEqual(failures, []);
  } finally {
    await monitored.close();
  }
});

test("idle cursors time out (43) and TTL documents are swept by the background timer", async (t) => {
  const quick = await startEmbeddedMongo({ cursorIdleTimeoutMs: 50, cursorSweepIntervalMs: 20, ttlIntervalMs: 20 });
  const quickClient = await new MongoClient(quick.uri).connect();
  try {
    const db = quickClient.db("quick");
    await db.collection("c").insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
    const first = await db.command({ find: "c", batchSize: 2 }, { promoteLongs: false });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const expired = await t.throwsAsync(db.command({ getMore: first.cursor.id, collection: "c" }), { instanceOf: MongoServerError });
    t.is(expired.code, 43);
    await db.collection("sessions").createIndex({ at: 1 }, { expireAfterSeconds: 1 });
    await db.collection("sessions").insertMany([{ at: new Date(Date.now() - 60_000) }, { at: new Date(Date.now() + 60_000) }, { at: "not a date" }]);
    for (;;) {
      if ((await db.collection("sessions").countDocuments()) === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    t.is(await db.collection("sessions").countDocuments({ at: { $type: "date" } }), 1);
  } finally {
    await quickClient.close();
    await quick.stop();
  }
});

test("collation strength 1 and 2 for queries and case-insensitive unique indexes", async (t) => {
  const c = shared.client.db(freshDb("collation")).collection("names");
  await c.createIndex({ name: 1 }, { unique: true, collation: { locale: "en", strength: 2 } });
  await c.insertOne({ name: "Émile" });
  const duplicate = await t.throwsAsync(c.insertOne({ name: "éMILE" }), { instanceOf: MongoServerError });
  t.is(duplicate.code, 11000);
  await c.insertOne({ name: "Emile" });
  t.is(await c.countDocuments({ name: "emile" }, { collation: { locale: "en", strength: 1 } }), 2);
  t.is(await c.countDocuments({ name: "emile" }, { collation: { locale: "en", strength: 2 } }), 1);
  t.is(await c.countDocuments({ name: "emile" }), 0);
  const plan = await c.find({ name: "EMILE" }).collation({ locale: "en", strength: 2 }).explain("executionStats");
  t.is(plan.queryPlanner.winningPlan.inputStage?.indexName, "name_1");
  t.is(plan.executionStats.nReturned, 1);
});

test("known issue (fixed): Model.countDocuments runs through aggregate", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: freshDb("count") }).asPromise();
  try {
    const Todo = connection.model("Todo", new mongoose.Schema({ title: String }));
    await Todo.create({ title: "a" });
    t.is(await Todo.countDocuments({ title: "a" }), 1);
    t.is(await Todo.countDocuments({ title: "b" }), 0);
  } finally {
    await connection.close();
  }
});

test("a unique index cannot be built over existing duplicates (11000) and leaves no index", async (t) => {
  const c = shared.client.db(freshDb("build")).collection("c");
  await c.insertMany([{ k: 1 }, { k: 1 }]);
  const error = await t.throwsAsync(c.createIndex({ k: 1 }, { unique: true }), { instanceOf: MongoServerError });
  t.is(error.code, 11000);
  t.deepEqual((await c.listIndexes().toArray()).map((index) => index.name), ["_id_"]);
  await c.createIndex({ k: 1 }, { name: "k_1" });
  const conflict = await t.throwsAsync(c.createIndex({ k: -1 }, { name: "k_1" }), { instanceOf: MongoServerError });
  t.is(conflict.code, 86);
  const options = await t.throwsAsync(c.createIndex({ k: 1 }, { name: "k_1", unique: true }), { instanceOf: MongoServerError });
  t.is(options.code, 85);
});

test("mongoose: withTransaction commits every write or none", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: freshDb("txn") }).asPromise();
  try {
    const Account = connection.model("Account", new mongoose.Schema({ name: String, balance: Number }));
    const Transfer = connection.model("Transfer", new mongoose.Schema({ from: String, to: String, amount: Number }));
    await Account.create([{ name: "a", balance: 100 }, { name: "b", balance: 0 }]);
    const transfer = (amount: number) =>
      connection.transaction(async (session) => {
        await Account.updateOne({ name: "a" }, { $inc: { balance: -amount } }, { session });
        await Account.updateOne({ name: "b" }, { $inc: { balance: amount } }, { session });
        await Transfer.create([{ from: "a", to: "b", amount }], { session });
        if ((await Account.findOne({ name: "a" }).session(session))!.balance! < 0) throw new Error("insufficient funds");
      });
    await transfer(30);
    await t.throwsAsync(transfer(500), { message: "insufficient funds" });
    const balances = Object.fromEntries((await Account.find().lean()).map((account) => [account.name, account.balance]));
    t.deepEqual(balances, { a: 70, b: 30 }, "the committed transfer applied, the aborted one left nothing");
    t.deepEqual((await Transfer.find().lean()).map((row) => row.amount), [30]);
  } finally {
    await connection.close();
  }
});
