import test from "ava";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type mongoose from "mongoose";
import request from "supertest";
import { SvcApp } from "../../index.js";
import { bearer } from "../../hosts/testing.js";
import { demoAppOptions, withDemoPlugins } from "./app.js";
import { seedAdmin } from "./auth-setup.js";
import { Todo } from "./todo.js";
import { User } from "./user.js";
import { runsOnTheEmbeddedEngineOnly } from "../../test/support/engine-only.js";
import { tempDir } from "../../test/support/temp-dir.js";

runsOnTheEmbeddedEngineOnly(import.meta.url, "it restarts the demo as development runs it, on the embedded engine's data directory");

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const ADMIN_PASSWORD = "demo-restart-password";

/**
 * The demo as `npm start` builds it in development (embedded engine persisted in a data directory,
 * auth secrets generated into a secrets file), minus listening; both in a temp directory.
 */
function demoApp(dir: string): SvcApp {
  const options = demoAppOptions({
    NODE_ENV: "development",
    ADMIN_PASSWORD,
    SVC_DEV_SECRETS_FILE: path.join(dir, "secrets.json"),
  });
  const database = { ...options.database, dbPath: path.join(dir, "data") };
  return withDemoPlugins(new SvcApp({ ...options, database, logger: silent, handleSignals: false })).register(seedAdmin);
}

test("the demo's data and sign-ins survive a restart of the app on the same directory", async (t) => {
  const dir = tempDir(t, "svc-demo-");
  const first = demoApp(dir);
  const firstHttp = await first.build();
  const admin = await User.findOne({ email: "admin@example.com" }).lean<{ _id: mongoose.Types.ObjectId }>();
  t.truthy(admin, "the first start seeded the admin");
  await Todo.create({ title: "survive a restart", ownerId: admin!._id, tags: ["durable"] });
  const login = await request(firstHttp).post("/auth/login").send({ email: "admin@example.com", password: ADMIN_PASSWORD }).expect(200);
  const { token, refreshToken } = login.body.data as { token: string; refreshToken: string };
  await first.stop();
  t.true(readdirSync(path.join(dir, "data")).some((file) => file.startsWith("snapshot-")), "a clean stop leaves a snapshot");
  if (process.platform !== "win32") t.is(statSync(path.join(dir, "secrets.json")).mode & 0o777, 0o600, "only the owner reads the secrets");

  const second = demoApp(dir);
  const http = await second.build();
  t.teardown(() => second.stop());
  const admins = await User.find({ email: "admin@example.com" }).lean<Array<{ _id: mongoose.Types.ObjectId }>>();
  t.is(admins.length, 1, "the seed found the admin instead of creating another");
  t.deepEqual(String(admins[0]!._id), String(admin!._id));
  const todo = await Todo.findOne({ title: "survive a restart" }).lean();
  t.deepEqual(todo?.tags, ["durable"]);
  t.is(String(todo?.ownerId), String(admin!._id));

  // Same secrets after the restart: the old access and refresh tokens still work.
  const me = await request(http).get("/auth/me").set(bearer(token)).expect(200);
  t.is(me.body.data.email, "admin@example.com");
  await request(http).post("/auth/refresh_token").send({ refreshToken }).expect(200);

  // The demo serves the API docs UI by default, and its root says where.
  t.deepEqual((await request(http).get("/").expect(200)).body.data, { name: "svc demo", docs: "/openapi.json", docsUi: "/docs" });
  t.regex((await request(http).get("/docs/").expect(200)).text, /swagger-ui/);
});
