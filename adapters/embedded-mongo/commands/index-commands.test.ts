import test from "ava";
import { MongoServerError } from "mongodb";
import mongoose from "mongoose";
import { useFileEngine } from "../test-support/file-engine.js";

const shared = useFileEngine(test, "indexes");

test("a schema declaring text, 2dsphere, hashed and wildcard indexes starts; they are listed but never planned", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: shared.freshDb("special") }).asPromise();
  t.teardown(() => connection.close());
  const schema = new mongoose.Schema({ title: String, body: String, at: { type: { type: String }, coordinates: [Number] }, owner: String, meta: {} });
  schema.index({ title: "text", body: "text" });
  schema.index({ at: "2dsphere" });
  schema.index({ owner: "hashed" });
  schema.index({ "meta.$**": 1 });
  const Place = connection.model("Place", schema);
  await Place.init();
  const names = (await Place.collection.listIndexes().toArray()).map((index) => index.name);
  t.deepEqual(names, ["_id_", "title_text_body_text", "at_2dsphere", "owner_hashed", "meta.$**_1"]);

  await Place.create([{ title: "coffee", owner: "ann", meta: { k: 1 } }, { title: "tea", owner: "bob" }]);
  const plan = await Place.collection.find({ owner: "ann", "meta.k": 1 }).explain();
  t.is(plan.queryPlanner.winningPlan.stage, "COLLSCAN");

  // With the text index in place, $text still fails, saying why (not mongod's "text index required").
  const error = await t.throwsAsync(Place.find({ $text: { $search: "coffee" } }).exec(), { instanceOf: MongoServerError });
  t.is(error?.code, 2);
  t.regex(error?.message ?? "", /\$text is not supported by the embedded engine \(text indexes are stored but not used\)/);
});

test("unique hashed and unique wildcard indexes are refused, as mongod refuses them", async (t) => {
  const c = await shared.client.db(shared.freshDb("unique")).createCollection("c");
  const hashed = await t.throwsAsync(c.createIndex({ owner: "hashed" }, { unique: true }), { instanceOf: MongoServerError });
  t.is(hashed?.code, 16764);
  const wildcard = await t.throwsAsync(c.createIndex({ "$**": 1 }, { unique: true }), { instanceOf: MongoServerError });
  t.is(wildcard?.code, 67);
  t.deepEqual((await c.listIndexes().toArray()).map((index) => index.name), ["_id_"]);
  // Without unique they are accepted (a unique wildcard index made every second insert a duplicate).
  await c.createIndex({ "$**": 1 });
  await c.insertMany([{ a: 1 }, { a: 2 }]);
  t.is(await c.countDocuments(), 2);
});
