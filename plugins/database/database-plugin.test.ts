import test from "ava";
import mongoose from "mongoose";
import { DATABASE } from "../../contracts/database.js";
import { DatabaseErrors } from "../../adapters/database/errors.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

test.after.always(() => stopTestDatabase());

// One process, one default mongoose connection: these tests share it, so they run serially.
test.serial("production without DB_URI refuses to start, naming the variable", async (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "production" }, logger: silent, handleSignals: false });
  const error = await t.throwsAsync(() => app.build());
  t.true(hasErrorCode(error, DatabaseErrors.URI_REQUIRED));
  t.regex(error!.message, /DB_URI/);
});

test.serial("without DB_URI outside production the embedded engine serves the app", async (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "development" }, logger: silent, handleSignals: false });
  await app.build();
  const database = app.kernel.container.resolve(DATABASE);
  t.is(database.kind, "embedded");
  t.regex(database.displayUri, /embedded, memory/);
  const things = database.connection.collection("things");
  await things.insertOne({ name: "kettle" });
  t.is((await things.findOne({ name: "kettle" }))?.name, "kettle");
  await app.stop();
  t.is(mongoose.connection.readyState, mongoose.ConnectionStates.disconnected);
});

test.serial("apps in one process share the connection; the last to stop closes it", async (t) => {
  const { uri, dbName } = await startTestDatabase();
  const first = new SvcApp({ env: { NODE_ENV: "test" }, database: { uri, dbName }, logger: silent, handleSignals: false });
  const second = new SvcApp({ env: { NODE_ENV: "test" }, database: { uri, dbName }, logger: silent, handleSignals: false });
  await Promise.all([first.build(), second.build()]);
  t.is(first.kernel.container.resolve(DATABASE).kind, "external");
  await first.stop();
  t.is(mongoose.connection.readyState, mongoose.ConnectionStates.connected);
  await second.kernel.container.resolve(DATABASE).connection.collection("shared").insertOne({ ok: true });
  await second.stop();
  t.is(mongoose.connection.readyState, mongoose.ConnectionStates.disconnected);
});

test.serial("a second app cannot point the shared connection at another database", async (t) => {
  const { uri, dbName } = await startTestDatabase();
  const first = new SvcApp({ env: { NODE_ENV: "test" }, database: { uri, dbName }, logger: silent, handleSignals: false });
  await first.build();
  t.teardown(() => first.stop());
  const other = new SvcApp({ env: { NODE_ENV: "test" }, database: { uri, dbName: `${dbName}_other` }, logger: silent, handleSignals: false });
  const error = await t.throwsAsync(() => other.build());
  t.true(hasErrorCode(error, DatabaseErrors.CONNECTION_IN_USE));
});

test.serial("resolving the database before start is a coded error", (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "test" }, logger: silent, handleSignals: false });
  app.kernel.register();
  const error = t.throws(() => app.kernel.container.resolve(DATABASE));
  t.true(hasErrorCode(error, DatabaseErrors.NOT_STARTED));
});
