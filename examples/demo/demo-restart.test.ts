import test from "ava";
import type mongoose from "mongoose";
import { readdirSync } from "node:fs";
import path from "node:path";
import { SvcApp } from "../../index.js";
import { demoAuth, demoAuthEnvironment, seedAdmin } from "./auth-setup.js";
import { Todo, todoRouter } from "./todo.js";
import { User } from "./user.js";
import { tempDir } from "../../test/support/temp-dir.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The demo as `npm start` builds it (embedded engine persisted in a data directory), minus listening. */
function demoApp(dbPath: string): SvcApp {
  return new SvcApp({
    database: { dbPath, dbName: "svc_demo" },
    env: demoAuthEnvironment({ NODE_ENV: "development", ADMIN_PASSWORD: "demo-restart-password" }),
    logger: silent,
    handleSignals: false,
  })
    .register(todoRouter)
    .register(demoAuth)
    .register(seedAdmin);
}

test("the demo's data survives a restart of the app on the same data directory", async (t) => {
  const dbPath = tempDir(t, "svc-demo-data-");
  const first = demoApp(dbPath);
  await first.build();
  const admin = await User.findOne({ email: "admin@example.com" }).lean<{ _id: mongoose.Types.ObjectId }>();
  t.truthy(admin, "the first start seeded the admin");
  await Todo.create({ title: "survive a restart", ownerId: admin!._id, tags: ["durable"] });
  await first.stop();
  t.true(readdirSync(dbPath).some((file) => file.startsWith("snapshot-")), "a clean stop leaves a snapshot");

  const second = demoApp(dbPath);
  await second.build();
  t.teardown(() => second.stop());
  const admins = await User.find({ email: "admin@example.com" }).lean<Array<{ _id: mongoose.Types.ObjectId }>>();
  t.is(admins.length, 1, "the seed found the admin instead of creating another");
  t.deepEqual(String(admins[0]!._id), String(admin!._id));
  const todo = await Todo.findOne({ title: "survive a restart" }).lean();
  t.deepEqual(todo?.tags, ["durable"]);
  t.is(String(todo?.ownerId), String(admin!._id));
});
