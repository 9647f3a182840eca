import test from "ava";
import { MongoClient } from "mongodb";
import mongoose from "mongoose";
import request from "supertest";
import { awaitModelIndexes } from "../../adapters/database/indexes-ready.js";
import { DatabaseErrors } from "../../adapters/database/errors.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { createTestApp, startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { modelRouter, Permissions } from "../rest/index.js";

// The database plugin starts serving only once the indexes of the models declared so far exist.
// Models are global to the process and a model's index build is done once, so these tests run
// serially, each with its own models, and the one that breaks an index comes last.

test.after.always(() => stopTestDatabase());

const OPTIONS = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };
const open = { list: [Permissions.IsAny], create: [Permissions.IsAny], read: [Permissions.IsAny], update: [Permissions.IsAny], delete: [Permissions.IsAny] };

function uniqueModel(name: string) {
  return mongoose.model(name, new mongoose.Schema({ code: { type: String, required: true, unique: true, description: "Unique code" } }, OPTIONS));
}

test.serial("a burst of creates right after the start on a fresh database stores one record per unique value", async (t) => {
  const { uri } = await startTestDatabase();
  const admin = await new MongoClient(uri).connect();
  t.teardown(() => admin.close());
  // The index build takes a while (the engine's failCommand holds createIndexes for 300 ms), as
  // on a loaded database: the app must not serve creates before it is done.
  await admin.db("admin").command({ configureFailPoint: "failCommand", mode: { times: 1 }, data: { failCommands: ["createIndexes"], blockConnection: true, blockTimeMS: 300 } });
  const Coupon = uniqueModel("IndexWaitCoupon");
  const app = (await createTestApp()).register(modelRouter("/coupons", Coupon, { permissions: open }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const answers = await Promise.all(Array.from({ length: 20 }, () => request(http).post("/coupons").send({ code: "WELCOME" })));
  t.deepEqual(answers.map((answer) => answer.status).sort(), [201, ...Array<number>(19).fill(409)]);
  t.is(await Coupon.countDocuments({ code: "WELCOME" }), 1);
  t.true((await Coupon.collection.indexes()).some((index) => index.unique === true && "code" in index.key));
});

test.serial("a build still running after the wait is left to finish: the start goes on with a warning", async (t) => {
  const { uri } = await startTestDatabase();
  const admin = await new MongoClient(uri).connect();
  t.teardown(() => admin.close());
  const app = await createTestApp();
  await app.build();
  t.teardown(() => app.stop());
  // The engine's failCommand holds the model's createIndexes for 400 ms.
  await admin.db("admin").command({ configureFailPoint: "failCommand", mode: { times: 1 }, data: { failCommands: ["createIndexes"], blockConnection: true, blockTimeMS: 400 } });
  const Slow = uniqueModel("IndexWaitSlow");
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
  await awaitModelIndexes([Slow as unknown as mongoose.Model<unknown>], logger, 50);
  t.is(warnings.length, 1);
  t.regex(warnings[0]!, /Indexes of IndexWaitSlow are still being built/);
  await Slow.init();
  t.true((await Slow.collection.indexes()).some((index) => index.unique === true), "and the build ends");
});

test.serial("records that already break a unique index fail the start with DATABASE_INDEXES_FAILED naming the model", async (t) => {
  const { uri, dbName } = await startTestDatabase();
  const driver = await new MongoClient(uri).connect();
  t.teardown(() => driver.close());
  await driver.db(dbName).collection("indexwaitdupes").insertMany([{ code: "twice" }, { code: "twice" }]);
  const Dupe = uniqueModel("IndexWaitDupe");
  const app = (await createTestApp()).register(modelRouter("/dupes", Dupe, { permissions: open }));
  const error = await t.throwsAsync(() => app.build());
  t.true(hasErrorCode(error, DatabaseErrors.INDEXES_FAILED), String(error));
  t.regex(error!.message, /IndexWaitDupe/);
  t.regex(error!.message, /remove the duplicates/);
  t.regex(error!.message, /E11000/, "the database's reason");
});
