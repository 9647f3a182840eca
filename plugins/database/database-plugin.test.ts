import test from "ava";
import mongoose from "mongoose";
import { DATABASE } from "../../contracts/database.js";
import { DatabaseErrors } from "../../adapters/database/errors.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { JWT_ENV } from "../../test/support/auth-test-app.js";
import { authPlugin, baseUserPlugin } from "../auth/index.js";
import { Permissions, modelRouter } from "../rest/index.js";

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

// A linked install of svc keeps its own node_modules/mongoose: the user's models then belong to a
// mongoose svc never connects. A separate Mongoose instance is exactly that situation in one process.
test.serial("a model from a second mongoose copy fails the start at once, naming the cause and the fix", async (t) => {
  const { uri, dbName } = await startTestDatabase();
  const otherCopy = new mongoose.Mongoose();
  const Post = otherCopy.model("Post", new otherCopy.Schema({ title: String }));
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: { uri, dbName }, logger: silent, handleSignals: false }).register(
    modelRouter("/posts", Post as never, { permissions: { list: [Permissions.IsAuthenticated] } }),
  );
  const error = await t.throwsAsync(() => app.build());
  t.true(hasErrorCode(error, DatabaseErrors.SECOND_MONGOOSE));
  t.regex(error!.message, /Post.*modelRouter "\/posts".*npm ls mongoose/s);
  // The failed start let go of the shared connection.
  t.is(mongoose.connection.readyState, mongoose.ConnectionStates.disconnected);
});

test.serial("a user model on a connection svc does not open fails the auth start at once", async (t) => {
  const { uri, dbName } = await startTestDatabase();
  const elsewhere = mongoose.createConnection();
  t.teardown(() => elsewhere.close());
  const User = elsewhere.model("User", new mongoose.Schema({ email: String }).plugin(baseUserPlugin));
  const app = new SvcApp({
    env: { NODE_ENV: "test", ...JWT_ENV },
    database: { uri, dbName },
    logger: silent,
    handleSignals: false,
  }).register(authPlugin({ userModel: User }));
  const error = await t.throwsAsync(() => app.build());
  t.true(hasErrorCode(error, DatabaseErrors.MODEL_ON_OTHER_CONNECTION), error?.message);
  t.regex(error!.message, /User.*authPlugin userModel.*mongoose\.model/s);
});

test.serial("a connection that fails names the database without its secrets", async (t) => {
  // `bogus` makes the driver refuse the string at once, before any network wait.
  const uri = "mongodb://app:p@ss@127.0.0.1:1/app?tlsCertificateKeyFilePassword=s3cretPW&bogus=1";
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: { uri }, logger: silent, handleSignals: false });
  const error = await t.throwsAsync(() => app.build());
  t.true(hasErrorCode(error, DatabaseErrors.CONNECT_FAILED), error?.message);
  t.regex(error!.message, /127\.0\.0\.1:1\/app/);
  t.notRegex(error!.message, /p@ss|ss@|s3cretPW/);
});
