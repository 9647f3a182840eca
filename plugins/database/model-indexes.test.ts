import test, { type ExecutionContext } from "ava";
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

/**
 * Holds the next createIndexes of one collection of this process's database for `blockTimeMS`.
 * Narrowed to the collection: a fail point is server-wide, and on a shared MongoDB
 * (SVC_TEST_DB_URI) other test processes build indexes too.
 */
async function holdIndexBuild(t: ExecutionContext, collection: string, blockTimeMS: number): Promise<void> {
  const { uri, dbName } = await startTestDatabase();
  const admin = await new MongoClient(uri).connect();
  t.teardown(() => admin.close());
  const data = { failCommands: ["createIndexes"], blockConnection: true, blockTimeMS, namespace: `${dbName}.${collection}` };
  await admin.db("admin").command({ configureFailPoint: "failCommand", mode: { times: 1 }, data });
}

test.serial("a burst of creates right after the start on a fresh database stores one record per unique value", async (t) => {
  // The index build takes a while (held for 300 ms), as on a loaded database: the app must not
  // serve creates before it is done.
  await holdIndexBuild(t, "indexwaitcoupons", 300);
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
  const app = await createTestApp();
  await app.build();
  t.teardown(() => app.stop());
  await holdIndexBuild(t, "indexwaitslows", 400);
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
