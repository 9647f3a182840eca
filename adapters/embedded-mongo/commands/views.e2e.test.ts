import test from "ava";
import { MongoServerError } from "mongodb";
import type { Document } from "mongodb";
import mongoose from "mongoose";
import { ErrorCodes } from "../index.js";
import { useFileEngine } from "../test-support/file-engine.js";

// Views through the real driver and mongoose: read through their pipeline, never written.
const shared = useFileEngine(test, "views");

/** Documents with numeric ids (the driver's default schema types `_id` as an ObjectId). */
type Row = { _id: number } & Document;

async function seededDb(label: string) {
  const db = shared.client.db(shared.freshDb(label));
  await db.collection<Row>("orders").insertMany([
    { _id: 1, customer: "ann", total: 10, paid: true, tags: ["a", "b"] },
    { _id: 2, customer: "bob", total: 25, paid: false, tags: ["b"] },
    { _id: 3, customer: "ann", total: 40, paid: true, tags: ["c"] },
  ]);
  await db.createCollection("paid", { viewOn: "orders", pipeline: [{ $match: { paid: true } }] });
  return db;
}

test("a view is read through its pipeline by find, aggregate, countDocuments, estimatedDocumentCount and distinct", async (t) => {
  const db = await seededDb("reads");
  const paid = db.collection<Row>("paid");
  t.deepEqual(await paid.find({ total: { $gt: 5 } }, { sort: { total: -1 }, projection: { total: 1 } }).toArray(), [
    { _id: 3, total: 40 },
    { _id: 1, total: 10 },
  ]);
  t.deepEqual(await paid.find({}, { skip: 1, limit: 1, sort: { _id: 1 } }).toArray(), [{ _id: 3, customer: "ann", total: 40, paid: true, tags: ["c"] }]);
  t.deepEqual(await paid.aggregate([{ $group: { _id: "$customer", sum: { $sum: "$total" } } }]).toArray(), [{ _id: "ann", sum: 50 }]);
  t.is(await paid.countDocuments({ total: { $lt: 20 } }), 1);
  t.is(await paid.estimatedDocumentCount(), 2);
  t.deepEqual((await paid.distinct("tags")).sort(), ["a", "b", "c"]);
  // Views on views concatenate their pipelines; $lookup can read a view.
  await db.createCollection("bigPaid", { viewOn: "paid", pipeline: [{ $match: { total: { $gte: 20 } } }, { $project: { customer: 1 } }] });
  t.deepEqual(await db.collection<Row>("bigPaid").find().toArray(), [{ _id: 3, customer: "ann" }]);
  const joined = await db.collection<Row>("orders").aggregate([{ $match: { _id: 2 } }, { $lookup: { from: "bigPaid", pipeline: [], as: "big" } }]).toArray();
  t.deepEqual(joined[0]!["big"], [{ _id: 3, customer: "ann" }]);
  // The view follows its source.
  await db.collection<Row>("orders").updateOne({ _id: 2 }, { $set: { paid: true } });
  t.is(await paid.countDocuments(), 3);
});

test("listCollections shows a view with type 'view', its options and readOnly; drop removes it", async (t) => {
  const db = await seededDb("list");
  const views = await db.listCollections({ type: "view" }).toArray();
  t.deepEqual(views, [{ name: "paid", type: "view", options: { viewOn: "orders", pipeline: [{ $match: { paid: true } }] }, info: { readOnly: true } }]);
  t.deepEqual(
    (await db.listCollections({}, { nameOnly: true }).toArray()).map((entry) => [entry.name, entry.type]).sort(),
    [["orders", "collection"], ["paid", "view"]],
  );
  t.true(await db.collection<Row>("paid").drop());
  t.deepEqual(await db.listCollections({ type: "view" }).toArray(), []);
  t.is(await db.collection<Row>("orders").countDocuments(), 3, "dropping a view leaves its source alone");
});

test("writes, indexes and change streams on a view are refused with CommandNotSupportedOnView (166)", async (t) => {
  const db = await seededDb("writes");
  const paid = db.collection<Row>("paid");
  const refusals: Array<[string, () => Promise<unknown>]> = [
    ["insertOne", () => paid.insertOne({ _id: 9, paid: true })],
    ["updateOne", () => paid.updateOne({}, { $set: { total: 0 } })],
    ["updateMany upsert", () => paid.updateMany({ _id: 99 }, { $set: { total: 0 } }, { upsert: true })],
    ["deleteMany", () => paid.deleteMany({})],
    ["findOneAndUpdate", () => paid.findOneAndUpdate({}, { $set: { total: 0 } })],
    ["createIndex", () => paid.createIndex({ total: 1 })],
    ["listIndexes", () => paid.listIndexes().toArray()],
    ["watch", async () => {
      const stream = paid.watch();
      try {
        await stream.tryNext();
      } finally {
        await stream.close();
      }
    }],
    ["renameCollection", () => paid.rename("paid2")],
  ];
  for (const [label, attempt] of refusals) {
    const error = await t.throwsAsync(attempt, { instanceOf: MongoServerError }, label);
    t.is(error?.code, ErrorCodes.CommandNotSupportedOnView, label);
  }
  t.is(await db.collection<Row>("orders").countDocuments(), 3, "nothing reached the source collection");
});

test("view definitions are checked as mongod checks them", async (t) => {
  const db = await seededDb("definitions");
  const code = async (options: Record<string, unknown>, name = "v"): Promise<number | undefined> =>
    (await t.throwsAsync(db.command({ create: name, ...options }), { instanceOf: MongoServerError }))?.code as number | undefined;
  t.is(await code({ viewOn: "orders", pipeline: [{ $out: "x" }] }), ErrorCodes.OptionNotSupportedOnView);
  t.is(await code({ viewOn: 5 }), ErrorCodes.TypeMismatch);
  t.is(await code({ viewOn: "" }), ErrorCodes.BadValue);
  t.is(await code({ viewOn: "orders", pipeline: { $match: {} } }), ErrorCodes.TypeMismatch);
  t.is(await code({ viewOn: "orders", pipeline: [{ $match: {}, $limit: 1 }] }), 40323);
  t.is(await code({ pipeline: [] }), ErrorCodes.BadValue, "pipeline without viewOn");
  t.is(await code({ viewOn: "orders", validator: { a: 1 } }), ErrorCodes.InvalidOptions);
  t.is(await code({ viewOn: "orders" }, "paid"), ErrorCodes.NamespaceExists);
  t.is(await code({ viewOn: "self" }, "self"), ErrorCodes.GraphContainsCycle);
  await db.createCollection("second", { viewOn: "paid" });
  t.is(
    (await t.throwsAsync(db.command({ collMod: "paid", viewOn: "second", pipeline: [] }), { instanceOf: MongoServerError }))?.code,
    ErrorCodes.GraphContainsCycle,
  );
  // collMod redefines a view.
  await db.command({ collMod: "paid", viewOn: "orders", pipeline: [{ $match: { paid: false } }] });
  t.deepEqual(await db.collection<Row>("second").find({}, { projection: { _id: 1 } }).toArray(), [{ _id: 2 }]);
  t.is(
    (await t.throwsAsync(db.command({ collMod: "paid", validator: { a: 1 } }), { instanceOf: MongoServerError }))?.code,
    ErrorCodes.InvalidOptions,
  );
});

test("creating and dropping a view emit create and drop events with showExpandedEvents only, as mongod", async (t) => {
  const db = shared.client.db(shared.freshDb("events"));
  await db.collection<Row>("orders").insertOne({ _id: 1, paid: true });
  const expanded = db.watch([], { showExpandedEvents: true });
  const plain = db.watch([]);
  await expanded.tryNext();
  await plain.tryNext();
  await db.createCollection("paid", { viewOn: "orders", pipeline: [{ $match: { paid: true } }] });
  await db.collection<Row>("paid").drop();
  await db.collection<Row>("orders").insertOne({ _id: 2 });
  const created: Document = await expanded.next();
  t.like(created, { operationType: "create", ns: { db: db.databaseName, coll: "paid" } });
  t.deepEqual(created["operationDescription"], { viewOn: "orders", pipeline: [{ $match: { paid: true } }] });
  t.false("collectionUUID" in created, "a view has no UUID");
  t.like(await expanded.next(), { operationType: "drop", ns: { db: db.databaseName, coll: "paid" } });
  t.like(await expanded.next(), { operationType: "insert" });
  t.like(await plain.next(), { operationType: "insert", documentKey: { _id: 2 } }, "without showExpandedEvents the view's DDL is not shown");
  await expanded.close();
  await plain.close();
});

test("mongoose: Model.createCollection with viewOn, then queries on the view model", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: shared.freshDb("mongoose") }).asPromise();
  try {
    const User = connection.model("User", new mongoose.Schema({ name: String, role: String }));
    await User.create([{ name: "ann", role: "admin" }, { name: "bob", role: "user" }, { name: "cid", role: "admin" }]);
    const Admin = connection.model("Admin", new mongoose.Schema({ name: String }), "admins", { overwriteModels: true });
    await Admin.createCollection({ viewOn: "users", pipeline: [{ $match: { role: "admin" } }, { $project: { name: 1 } }] });
    t.deepEqual((await Admin.find().sort({ name: 1 }).lean()).map((admin) => admin.name), ["ann", "cid"]);
    t.is(await Admin.countDocuments({ name: "cid" }), 1);
    t.deepEqual(await Admin.distinct("name", { name: { $ne: "ann" } }), ["cid"]);
    const error = await t.throwsAsync(Admin.create({ name: "dan" }));
    t.is((error as MongoServerError | undefined)?.code, ErrorCodes.CommandNotSupportedOnView);
    t.is(await User.countDocuments(), 3);
  } finally {
    await connection.close();
  }
});
