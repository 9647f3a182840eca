import test from "ava";
import { Decimal128, MongoClient, MongoServerError } from "mongodb";
import type { CollectionInfo } from "mongodb";
import mongoose from "mongoose";
import { startEmbeddedMongo } from "../start-embedded-mongo.js";
import type { RunningEmbeddedMongo } from "../start-embedded-mongo.js";
import { tempDir } from "../test-support/temp-dir.js";
import { silentLogger } from "../test-support/silent-logger.js";


interface Author {
  email: string;
  name: string;
}
interface Post {
  author: mongoose.Types.ObjectId;
  slug: string;
  site: string;
  views: bigint;
  price: Decimal128;
  expiresAt?: Date;
}

/** A fresh connection (not mongoose's default) with the models this test needs. */
function connect(running: RunningEmbeddedMongo) {
  const connection = mongoose.createConnection(running.uri, { dbName: "blog" });
  const authorSchema = new mongoose.Schema<Author>({ email: { type: String, required: true, unique: true }, name: String });
  const postSchema = new mongoose.Schema<Post>(
    {
      author: { type: mongoose.Schema.Types.ObjectId, ref: "Author", required: true },
      slug: { type: String, required: true },
      site: { type: String, required: true },
      views: { type: mongoose.Schema.Types.BigInt, default: 0n },
      price: { type: mongoose.Schema.Types.Decimal128 },
      expiresAt: { type: Date, expires: 3600 },
    },
    { timestamps: true },
  );
  postSchema.index({ site: 1, slug: 1 }, { unique: true });
  const Author = connection.model<Author>("Author", authorSchema);
  const PostModel = connection.model<Post>("Post", postSchema);
  return { connection, Author, Post: PostModel };
}

test("a mongoose app's data, indexes and types survive a clean restart", async (t) => {
  const dbPath = tempDir(t, "svc-journal-mongoose-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  t.teardown(() => first.stop());
  const before = connect(first);
  t.teardown(() => before.connection.close());
  await before.connection.asPromise();
  await before.Author.init();
  await before.Post.syncIndexes();
  const ada = await before.Author.create({ email: "ada@example.com", name: "Ada" });
  await before.Post.create([
    { author: ada._id, slug: "hello", site: "a", price: Decimal128.fromString("9.99"), expiresAt: new Date(Date.now() + 86_400_000) },
    { author: ada._id, slug: "hello", site: "b", views: 9007199254740993n },
  ]);
  await before.Post.updateOne({ site: "a", slug: "hello" }, { $inc: { views: 5 } });
  const indexesBefore = await before.Post.listIndexes();
  const collectionsBefore = await before.connection.db!.listCollections().toArray();
  await before.connection.close();
  await first.stop();

  const second = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  t.teardown(() => second.stop());
  const after = connect(second);
  t.teardown(() => after.connection.close());
  await after.connection.asPromise();
  t.deepEqual(await after.Post.listIndexes(), indexesBefore);
  const nameAndInfo = (infos: Array<Partial<CollectionInfo>>) => infos.map((info) => [info.name, info.info]).sort();
  t.deepEqual(
    nameAndInfo(await after.connection.db!.listCollections().toArray()),
    nameAndInfo(collectionsBefore),
    "names and UUIDs",
  );
  // syncIndexes finds nothing to change: the specs came back exactly as mongoose created them.
  t.deepEqual(await after.Post.diffIndexes(), { toDrop: [], toCreate: [] });
  const posts = await after.Post.find().sort({ site: 1 }).populate<{ author: Author }>("author").lean();
  t.is(posts.length, 2);
  t.is(posts[0]!.author.name, "Ada");
  t.is(posts[0]!.views.toString(), "5");
  t.is(posts[0]!.price.toString(), "9.99");
  t.true(posts[0]!.expiresAt instanceof Date);
  t.is(posts[1]!.views.toString(), "9007199254740993", "Int64 above 2^53 survived");
  const duplicate = await t.throwsAsync(after.Author.create({ email: "ada@example.com", name: "Other" }));
  t.is((duplicate as MongoServerError).code, 11000, "the unique index still enforces");
  await t.throwsAsync(after.Post.create({ author: ada._id, slug: "hello", site: "a" }), { instanceOf: MongoServerError });
});

test("change-stream history does not survive a restart: a pre-restart resume token gives 286", async (t) => {
  const dbPath = tempDir(t, "svc-journal-stream-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  t.teardown(() => first.stop());
  const firstClient = await new MongoClient(first.uri).connect();
  t.teardown(() => firstClient.close());
  const events = firstClient.db("app").collection("feed");
  const stream = events.watch();
  const next = stream.next();
  await events.insertOne({ n: 1 });
  const token = (await next)._id;
  await stream.close();
  await firstClient.close();
  await first.stop();

  const second = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  t.teardown(() => second.stop());
  const client = await new MongoClient(second.uri).connect();
  t.teardown(() => client.close());
  const feed = client.db("app").collection("feed");
  t.is(await feed.countDocuments(), 1);
  const resumed = feed.watch([], { resumeAfter: token });
  const error = await t.throwsAsync(resumed.next());
  t.is((error as MongoServerError).code, 286);
  await resumed.close();
  // A new stream works and sees only new events.
  const fresh = feed.watch();
  const event = fresh.next();
  await feed.insertOne({ n: 2 });
  t.is((await event).operationType, "insert");
  await fresh.close();
});

test("a committed transaction is journaled as one batch and replayed in order; an aborted one leaves nothing", async (t) => {
  const dbPath = tempDir(t, "svc-journal-txn-");
  const first = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose: false } });
  t.teardown(() => first.stop());
  const client = await new MongoClient(first.uri).connect();
  t.teardown(() => client.close());
  const accounts = client.db("bank").collection<{ _id: string; balance: number; opened?: boolean }>("accounts");
  await accounts.insertOne({ _id: "a", balance: 100 });
  const recordsBefore = first.journal!.stats().records;
  await client.withSession((session) =>
    session.withTransaction(async () => {
      await accounts.insertOne({ _id: "b", balance: 0 }, { session });
      await accounts.updateOne({ _id: "b" }, { $inc: { balance: 40 }, $set: { opened: true } }, { session });
      await accounts.updateOne({ _id: "a" }, { $inc: { balance: -40 } }, { session });
    }),
  );
  t.is(first.journal!.stats().records - recordsBefore, 1, "the whole transaction is one journal record");
  const aborted = client.startSession();
  aborted.startTransaction();
  await accounts.insertOne({ _id: "never", balance: 1 }, { session: aborted });
  await aborted.abortTransaction();
  await aborted.endSession();
  await client.close();
  await first.stop();

  const second = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  t.teardown(() => second.stop());
  const docs = [...second.engine.storage.collection("bank", "accounts")!.records.values()].map((record) => ({
    _id: record.doc["_id"],
    balance: Number(record.doc["balance"]),
    opened: record.doc["opened"],
  }));
  t.deepEqual(docs, [
    { _id: "a", balance: 60, opened: undefined },
    { _id: "b", balance: 40, opened: true },
  ]);
});
