import test from "ava";
import mongoose from "mongoose";
import { startEmbeddedMongo, type RunningEmbeddedMongo } from "../../adapters/embedded-mongo/index.js";
import { modelRouter, Permissions } from "../../plugins/rest/index.js";
import { createTestApp, resetTestDatabase, startTestDatabase, stopTestDatabase } from "../testing.js";

// `SVC_TEST_DB_URI` mode: this process's tests must keep to a database of their own and leave
// nothing behind. On the real MongoDB the suite runs against, if it does; otherwise an engine
// served over TCP stands in for it.
const realServer = process.env.SVC_TEST_DB_URI;
let server: RunningEmbeddedMongo | undefined;
let uri: string;
let admin: InstanceType<typeof mongoose.mongo.MongoClient>;

test.before(async () => {
  if (!realServer) server = await startEmbeddedMongo({});
  uri = realServer ?? server!.uri;
  admin = await new mongoose.mongo.MongoClient(uri).connect();
  process.env.SVC_TEST_DB_URI = uri;
});

test.after.always(async () => {
  if (!realServer) delete process.env.SVC_TEST_DB_URI;
  await stopTestDatabase();
  await admin?.close();
  await server?.stop();
});

const Memo = mongoose.model("ExternalDbMemo", new mongoose.Schema({ text: { type: String, unique: true, description: "Unique text" } }));
const databaseNames = async () => (await admin.db("admin").admin().listDatabases()).databases.map((database) => database.name);

test.serial("with SVC_TEST_DB_URI the process gets a database of its own; resets keep indexes; stopping drops it even while an app stops", async (t) => {
  const database = await startTestDatabase();
  t.is(database.kind, "external");
  t.is(database.uri, uri);
  t.regex(database.dbName, /^svc_test_\d+_[0-9a-f]{8}$/);

  const app = (await createTestApp()).register(modelRouter("/memos", Memo, { permissions: { create: [Permissions.IsAny], list: [Permissions.IsAny] } }));
  await app.start();
  await Memo.create({ text: "kept index" });
  t.true((await databaseNames()).includes(database.dbName));

  await resetTestDatabase();
  t.is(await admin.db(database.dbName).collection(Memo.collection.collectionName).countDocuments(), 0);
  await Memo.create({ text: "once" });
  const duplicate = await Memo.create({ text: "once" }).catch((error: unknown) => error);
  t.is((duplicate as { code?: number }).code, 11000, "the unique index survived the reset");

  // The last app to stop calls mongoose.disconnect(), which closes every mongoose connection:
  // the drop must not go through one.
  await Promise.all([app.stop(), stopTestDatabase()]);
  t.false((await databaseNames()).includes(database.dbName));
});
