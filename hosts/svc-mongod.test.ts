import test from "ava";
import type { ExecutionContext } from "ava";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MongoMemoryReplSet, MongoMemoryServer } from "mongodb-memory-server";
import mongoose from "mongoose";
import { MongoMemoryReplSet as SvcMemoryReplSet, MongoMemoryServer as SvcMemoryServer } from "./testing.js";
import { startEmbeddedMongo } from "../adapters/embedded-mongo/index.js";
import { parseMongodCommandLine } from "./svc-mongod/mongod-command-line.js";
import { runsOnTheEmbeddedEngineOnly } from "../test/support/engine-only.js";

// mongodb-memory-server (the real package) started with MONGOMS_SYSTEM_BINARY at svc-mongod, in
// its single-server and replica-set modes, and svc/testing's in-process look-alikes: each runs a
// mongoose CRUD round and a change stream.
runsOnTheEmbeddedEngineOnly(import.meta.url, "it tests svc-mongod and svc/testing's MongoMemoryServer, which start the embedded engine");

const LAUNCHER = path.join(path.dirname(fileURLToPath(import.meta.url)), "test-support", "svc-mongod");
process.env["MONGOMS_SYSTEM_BINARY"] = LAUNCHER;
process.env["MONGOMS_VERSION"] = "7.0.14";
// tsx compiles the sources at each start; a loaded CI machine needs more than the 10 s default.
const LAUNCH_TIMEOUT_MS = 120_000;

interface Todo {
  title: string;
  done: boolean;
}
const todoSchema = new mongoose.Schema<Todo>({ title: { type: String, required: true }, done: { type: Boolean, default: false } });

/** Create, read, update, delete, and a change stream seeing an insert, through mongoose. */
async function crudAndChangeStream(t: ExecutionContext, uri: string): Promise<void> {
  const connection = await mongoose.createConnection(uri, { serverSelectionTimeoutMS: 20_000 }).asPromise();
  try {
    const Todos = connection.model<Todo>("Todo", todoSchema);
    const created = await Todos.create({ title: "write the test" });
    t.is((await Todos.findById(created._id).lean())?.title, "write the test");
    await Todos.updateOne({ _id: created._id }, { done: true });
    t.true((await Todos.findById(created._id).lean())?.done);
    await Todos.deleteOne({ _id: created._id });
    t.is(await Todos.countDocuments(), 0);

    const stream = Todos.watch();
    const change = once(stream, "change");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Todos.create({ title: "seen by the stream" });
    const [event] = (await change) as [{ operationType: string; fullDocument: Todo }];
    t.is(event.operationType, "insert");
    t.is(event.fullDocument.title, "seen by the stream");
    await stream.close();
  } finally {
    await connection.close();
  }
}

test("the command line: mongod's options are understood, the rest ignored and listed", (t) => {
  const line = parseMongodCommandLine([
    "--port", "27999", "--dbpath", "/tmp/db", "--replSet", "rs0/host:1", "--storageEngine", "ephemeralForTest",
    "--bind_ip=0.0.0.0,::1", "--noauth", "--oplogSize", "10", "--setParameter", "enableTestCommands=1", "--setParameter", "ttlMonitorSleepSecs=1",
  ]);
  t.is(line.port, 27999);
  t.is(line.dbPath, "/tmp/db");
  t.is(line.replSet, "rs0");
  t.true(line.inMemory);
  t.is(line.bindIp, "0.0.0.0");
  t.true(line.enableTestCommands);
  t.deepEqual(line.ignored, ["--noauth", "--oplogSize 10", "--setParameter ttlMonitorSleepSecs=1"]);
  t.false(parseMongodCommandLine(["--dbpath", "/tmp/db", "--storageEngine", "wiredTiger"]).inMemory);
  t.throws(() => parseMongodCommandLine(["--port", "http"]), { message: /invalid --port/ });
  t.throws(() => parseMongodCommandLine(["--dbpath"]), { message: /needs a value/ });
  t.false(parseMongodCommandLine(["--setParameter", "enableTestCommands=false"]).enableTestCommands);
  t.false(parseMongodCommandLine(["--setParameter=enableTestCommands=0"]).enableTestCommands);
  for (const value of ["enableTestCommands=yes", "enableTestCommands=", "enableTestCommands"]) {
    t.throws(() => parseMongodCommandLine(["--setParameter", value]), { message: 'svc-mongod: Bad value for parameter "enableTestCommands": Value is not a valid boolean' }, value);
  }
});

test("--version prints mongod's first line, which mongodb-memory-server parses", (t) => {
  const output = spawnSync(LAUNCHER, ["--version"], { encoding: "utf8" }).stdout;
  t.regex(output, /^\s*db\s+version\s+v7\.0\.14\s*$/im);
});

test("the usage is printed for a wrong command line only, not after a failed start", async (t) => {
  const wrong = spawnSync(LAUNCHER, ["--port", "abc"], { encoding: "utf8" });
  t.not(wrong.status, 0);
  t.regex(wrong.stderr, /usage: svc-mongod/);
  const engine = await startEmbeddedMongo({});
  t.teardown(() => engine.stop());
  // The port is taken: the start fails, and the flags were fine.
  const taken = spawnSync(LAUNCHER, ["--port", String(engine.port)], { encoding: "utf8" });
  t.not(taken.status, 0);
  t.regex(taken.stdout, /DBException in initAndListen, terminating.*EADDRINUSE/);
  t.false(taken.stderr.includes("usage:"), taken.stderr);
});

test("mongodb-memory-server's MongoMemoryServer runs on svc-mongod", async (t) => {
  const server = await MongoMemoryServer.create({ instance: { launchTimeout: LAUNCH_TIMEOUT_MS } });
  try {
    t.is(server.instanceInfo?.instance.isInstanceReady, true);
    await crudAndChangeStream(t, server.getUri("mms_single"));
  } finally {
    t.true(await server.stop());
  }
});

test("mongodb-memory-server's MongoMemoryReplSet (one member) runs on svc-mongod, transactions included", async (t) => {
  const replSet = await MongoMemoryReplSet.create({ replSet: { count: 1, name: "rs-test" }, instanceOpts: [{ launchTimeout: LAUNCH_TIMEOUT_MS }] });
  try {
    const uri = replSet.getUri("mms_replset");
    t.regex(uri, /replicaSet=rs-test/);
    await crudAndChangeStream(t, uri);
    const connection = await mongoose.createConnection(uri).asPromise();
    try {
      const Todos = connection.model<Todo>("Todo", todoSchema);
      await connection.transaction(async (session) => {
        await Todos.create([{ title: "in a transaction" }], { session });
      });
      t.is(await Todos.countDocuments({ title: "in a transaction" }), 1);
    } finally {
      await connection.close();
    }
  } finally {
    await replSet.stop();
  }
});

test("svc/testing's MongoMemoryServer and MongoMemoryReplSet: the same calls, in-process", async (t) => {
  const server = await SvcMemoryServer.create();
  try {
    t.regex(server.getUri("x"), /^mongodb:\/\/127\.0\.0\.1:\d+\/x$/);
    await crudAndChangeStream(t, server.getUri("svc_single"));
  } finally {
    t.true(await server.stop());
  }
  t.throws(() => server.getUri(), { message: /not running/ });

  const replSet = await SvcMemoryReplSet.create({ replSet: { count: 1 } });
  try {
    t.regex(replSet.getUri(), /\?replicaSet=testset$/);
    await crudAndChangeStream(t, replSet.getUri("svc_replset"));
  } finally {
    await replSet.stop();
  }
  t.throws(() => new SvcMemoryReplSet({ replSet: { count: 3 } }), { message: /one-member replica set/ });
});

test("replSetInitiate checks the name and the member count; shutdown is refused by an engine inside an application", async (t) => {
  const running = await startEmbeddedMongo({ replicaSetName: "rs-a" });
  t.teardown(() => running.stop());
  const engine = running.engine;
  const member = [{ _id: 0, host: "127.0.0.1:1" }];
  t.is((await engine.runCommand("admin", { replSetInitiate: { _id: "other", members: member } }))["code"], 93);
  t.is((await engine.runCommand("admin", { replSetInitiate: { _id: "rs-a", members: [...member, { _id: 1, host: "h:2" }] } }))["code"], 93);
  t.is((await engine.runCommand("admin", { replSetInitiate: { _id: "rs-a", members: member } }))["ok"], 1);
  t.is((await engine.runCommand("admin", { replSetInitiate: { _id: "rs-a", members: member } }))["code"], 23);
  t.is((await engine.runCommand("admin", { replSetGetConfig: 1 }))["config"]["_id"], "rs-a");
  t.is((await engine.runCommand("admin", { shutdown: 1 }))["code"], 20);
  t.is((await engine.runCommand("app", { shutdown: 1 }))["code"], 13);
});
