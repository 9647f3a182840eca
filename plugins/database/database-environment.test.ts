import test from "ava";
import { ConfigErrors } from "../../kernel/environment.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { readDatabaseEnvironment } from "./database-environment.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

test("unset or empty means the embedded engine", (t) => {
  t.is(readDatabaseEnvironment({}).uri, undefined);
  t.is(readDatabaseEnvironment({ DB_URI: "  ", DB_CONNECTION: "" }).uri, undefined);
});

test("DB_CONNECTION is the fallback for DB_URI", (t) => {
  t.is(readDatabaseEnvironment({ DB_CONNECTION: "mongodb://a/b" }).uri, "mongodb://a/b");
  t.is(readDatabaseEnvironment({ DB_URI: "mongodb://x/y", DB_CONNECTION: "mongodb://a/b" }).uri, "mongodb://x/y");
  t.is(readDatabaseEnvironment({ DB_URI: "mongodb+srv://u:p@cluster.example/app" }).uri, "mongodb+srv://u:p@cluster.example/app");
  t.is(readDatabaseEnvironment({ DB_URI: "mongodb://h1:27017,h2:27017/app?replicaSet=rs0" }).uri, "mongodb://h1:27017,h2:27017/app?replicaSet=rs0");
});

for (const name of ["DB_URI", "DB_CONNECTION"]) {
  test(`a ${name} that is not a MongoDB connection string is reported by name`, (t) => {
    const error = t.throws(() => readDatabaseEnvironment({ [name]: "postgres://db.example/app" }));
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
    t.true(error!.message.includes(name));
  });
}

test("a wrong DB_URI fails the app in the register phase, before anything connects", (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "test", DB_URI: "localhost:27017" }, logger: silent, handleSignals: false });
  const error = t.throws(() => app.kernel.register());
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.true(error!.message.includes("DB_URI"));
});
