import test from "ava";
import type { ExecutionContext } from "ava";
import { MongoClient, MongoNetworkError, MongoServerError, MongoWriteConcernError } from "mongodb";
import type { CommandStartedEvent, Document, MongoClientOptions } from "mongodb";
import { createEngine, startEmbeddedMongo } from "../index.js";
import type { RunningEmbeddedMongo } from "../index.js";
import { silentLogger } from "../test-support/silent-logger.js";

type Row = { _id?: number; x?: number };

// Fail points are engine-wide, so every test gets its own engine and clients.
interface Rig {
  readonly server: RunningEmbeddedMongo;
  /** A client that records the commands it starts (`started("insert")`). */
  client(options?: MongoClientOptions): Promise<MongoClient>;
  started(name: string): number;
  failPoint(spec: Document): Promise<Document>;
}

async function rig(t: ExecutionContext, engineOptions: { enableTestCommands?: boolean } = {}): Promise<Rig> {
  const server = await startEmbeddedMongo({ logger: silentLogger, ...engineOptions });
  const clients: MongoClient[] = [];
  const events: CommandStartedEvent[] = [];
  const admin = await new MongoClient(server.uri, { appName: "fail-point-admin" }).connect();
  t.teardown(async () => {
    await Promise.all([admin, ...clients].map((client) => client.close()));
    await server.stop();
  });
  return {
    server,
    async client(options = {}) {
      // A short heartbeat: after a state-change error (91, 10107) the driver waits for the next one.
      const client = new MongoClient(server.uri, { monitorCommands: true, heartbeatFrequencyMS: 500, ...options });
      client.on("commandStarted", (event) => events.push(event));
      clients.push(client);
      return client.connect();
    },
    started: (name) => events.filter((event) => event.commandName === name).length,
    failPoint: (spec) => admin.db("admin").command({ configureFailPoint: "failCommand", ...spec }),
  };
}

async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MongoServerError) return error;
    throw error;
  }
  throw new Error("expected the command to fail");
}

test("configureFailPoint is refused where test commands are off, off the admin database, and for unknown names or modes", async (t) => {
  const production = await rig(t, { enableTestCommands: false });
  t.is((await serverError(production.failPoint({ mode: "alwaysOn" }))).code, 59);

  const r = await rig(t);
  const client = await r.client();
  t.is((await serverError(client.db("app").command({ configureFailPoint: "failCommand", mode: "off" }))).code, 13);
  const admin = client.db("admin");
  t.is((await serverError(admin.command({ configureFailPoint: "noSuchPoint", mode: "alwaysOn" }))).code, 266);
  t.is((await serverError(admin.command({ configureFailPoint: "failCommand" }))).code, 20);
  t.is((await serverError(admin.command({ configureFailPoint: "failCommand", mode: "sometimes" }))).code, 2);
  t.is((await serverError(admin.command({ configureFailPoint: "failCommand", mode: 3 }))).code, 14);
  t.is((await serverError(admin.command({ configureFailPoint: "failCommand", mode: { times: -1 } }))).code, 2);
  t.is((await serverError(admin.command({ configureFailPoint: "failCommand", mode: { activationProbability: 1.5 } }))).code, 2);
  t.is((await serverError(admin.command({ configureFailPoint: "failCommand", mode: { sometimes: 1 } }))).code, 2);
  t.is((await serverError(admin.command({ configureFailPoint: "failCommand", mode: "alwaysOn", data: 5 }))).code, 14);
  // configureFailPoint itself can never be failed, or the point could not be turned off.
  await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["configureFailPoint"], errorCode: 2 } });
  t.is((await r.failPoint({ mode: "off" })).ok, 1);
});

test("under NODE_ENV=production the engine has no configureFailPoint unless enableTestCommands says so", async (t) => {
  const previous = process.env["NODE_ENV"];
  process.env["NODE_ENV"] = "production";
  // createEngine reads the environment synchronously: nothing else runs in between.
  const production = createEngine({ logger: silentLogger });
  const forced = createEngine({ logger: silentLogger, enableTestCommands: true });
  if (previous === undefined) delete process.env["NODE_ENV"];
  else process.env["NODE_ENV"] = previous;
  const development = createEngine({ logger: silentLogger });
  t.teardown(() => [production, forced, development].forEach((engine) => engine.close()));
  const configure = { configureFailPoint: "failCommand", mode: "off" };
  t.is((await production.runCommand("admin", configure))["code"], 59);
  t.is((await forced.runCommand("admin", configure))["ok"], 1);
  t.is((await development.runCommand("admin", configure))["ok"], 1);
});

test("alwaysOn fails every selected command with the code until the point is turned off; count reports the hits", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await c.insertOne({ _id: 1 });
  t.is((await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["find"], errorCode: 2 } })).count, 0);
  for (let i = 0; i < 3; i++) t.is((await serverError(c.findOne({}))).code, 2);
  t.is((await c.countDocuments()), 1, "aggregate is not selected");
  t.is((await r.failPoint({ mode: "off" })).count, 3);
  t.deepEqual(await c.findOne({}), { _id: 1 });
});

test("{times: n} fails n selected commands, then the point is off", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await r.failPoint({ mode: { times: 2 }, data: { failCommands: ["find"], errorCode: 2 } });
  t.is((await serverError(c.findOne({}))).code, 2);
  t.is((await serverError(c.findOne({}))).code, 2);
  t.is(await c.findOne({}), null);
  t.is((await r.failPoint({ mode: "off" })).count, 2);
});

test("{skip: n} lets n selected commands through and fails every later one", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await r.failPoint({ mode: { skip: 2 }, data: { failCommands: ["find"], errorCode: 2 } });
  t.is(await c.findOne({}), null);
  t.is(await c.findOne({}), null);
  t.is((await serverError(c.findOne({}))).code, 2);
  t.is((await serverError(c.findOne({}))).code, 2);
});

test("{activationProbability: p}: 0 never fires, 1 always does", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await r.failPoint({ mode: { activationProbability: 0 }, data: { failCommands: ["find"], errorCode: 2 } });
  for (let i = 0; i < 5; i++) t.is(await c.findOne({}), null);
  await r.failPoint({ mode: { activationProbability: 1 }, data: { failCommands: ["find"], errorCode: 2 } });
  for (let i = 0; i < 5; i++) t.is((await serverError(c.findOne({}))).code, 2);
});

test("a retryable write failing with a retryable code is labelled RetryableWriteError and retried once", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], errorCode: 91 } });
  await c.insertOne({ _id: 1 });
  t.is(r.started("insert"), 2);
  t.deepEqual(await c.find().toArray(), [{ _id: 1 }]);
});

test("a write failing with a non-retryable code is not retried", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], errorCode: 2 } });
  const error = await serverError(c.insertOne({ _id: 1 }));
  t.is(error.code, 2);
  t.false(error.hasErrorLabel("RetryableWriteError"));
  t.is(r.started("insert"), 1);
  t.is(await c.countDocuments(), 0);
});

test("errorLabels replaces the computed labels: [] stops the retry, a given label makes the driver retry", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], errorCode: 91, errorLabels: [] } });
  const error = await serverError(c.insertOne({ _id: 1 }));
  t.is(error.code, 91);
  t.is(error.codeName, "ShutdownInProgress");
  t.is(r.started("insert"), 1);
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], errorCode: 2, errorLabels: ["RetryableWriteError"] } });
  await c.insertOne({ _id: 2 });
  t.is(r.started("insert"), 3);
});

test("writes are not retried by a client with retryWrites: false (no txnNumber, so no label)", async (t) => {
  const r = await rig(t);
  const c = (await r.client({ retryWrites: false })).db("app").collection<Row>("c");
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], errorCode: 91 } });
  const error = await serverError(c.insertOne({ _id: 1 }));
  t.false(error.hasErrorLabel("RetryableWriteError"));
  t.is(r.started("insert"), 1);
});

test("closeConnection drops the socket without a reply; the driver reconnects for the next command", async (t) => {
  const r = await rig(t);
  const client = await r.client({ retryReads: false, appName: "closer" });
  let created = 0;
  let closed = 0;
  client.on("connectionCreated", () => created++);
  client.on("connectionClosed", () => closed++);
  const c = client.db("app").collection<Row>("c");
  await c.insertOne({ _id: 1 });
  const before = created;
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["find"], closeConnection: true } });
  await t.throwsAsync(c.findOne({}), { instanceOf: MongoNetworkError });
  t.true(closed >= 1);
  t.deepEqual(await c.findOne({}), { _id: 1 });
  t.true(created > before, "a new connection was opened");
});

test("closeConnection on a retryable read: the driver retries it on a new connection", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await c.insertOne({ _id: 1 });
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["find"], closeConnection: true } });
  t.deepEqual(await c.findOne({}), { _id: 1 });
  t.is(r.started("find"), 2);
});

test("blockConnection holds the selected command while other clients are served", async (t) => {
  const r = await rig(t);
  const blocked = (await r.client({ appName: "blocked" })).db("app").collection<Row>("c");
  const free = (await r.client({ appName: "free" })).db("app").collection<Row>("c");
  await blocked.insertOne({ _id: 1 });
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["find"], appName: "blocked", blockConnection: true, blockTimeMS: 1500 } });
  const order: string[] = [];
  const held = blocked.findOne({ _id: 1 }).then((doc) => {
    order.push("blocked find");
    return doc;
  });
  await free.insertOne({ _id: 2 });
  t.deepEqual(await free.findOne({ _id: 2 }), { _id: 2 });
  order.push("other client");
  t.deepEqual(await held, { _id: 1 }, "the held command runs normally afterwards");
  t.deepEqual(order, ["other client", "blocked find"]);
  await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["find"], blockConnection: true } });
  t.is((await serverError(free.findOne({}))).code, 72, "blockConnection needs blockTimeMS");
});

test("appName and namespace narrow what a failCommand selects", async (t) => {
  const r = await rig(t);
  const a = (await r.client({ appName: "A" })).db("app");
  const b = (await r.client({ appName: "B" })).db("app");
  await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["find"], errorCode: 2, appName: "A" } });
  t.is((await serverError(a.collection<Row>("c").findOne({}))).code, 2);
  t.is(await b.collection<Row>("c").findOne({}), null);
  await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["find", "insert"], errorCode: 2, namespace: "app.one" } });
  t.is((await serverError(b.collection<Row>("one").findOne({}))).code, 2);
  t.is(await b.collection<Row>("two").findOne({}), null);
  t.truthy((await b.collection<Row>("two").insertOne({ x: 1 })).insertedId);
  // A database-level aggregate (db.watch(), `aggregate: 1`) is `<db>.$cmd.aggregate`, as on mongod.
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["aggregate"], errorCode: 2, namespace: "app.$cmd.aggregate" } });
  const stream = b.watch();
  t.is((await serverError(stream.next())).code, 2);
  await stream.close();
});

test("hostile data: a non-integer errorCode fails nothing, a negative blockTimeMS is InvalidOptions, junk failCommands select nothing", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  for (const errorCode of [2.5, "2", null]) {
    await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["find"], errorCode } });
    t.is(await c.findOne({}), null);
  }
  await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["find"], blockConnection: true, blockTimeMS: -1 } });
  t.is((await serverError(c.findOne({}))).code, 72);
  for (const failCommands of ["find", [1, null, { find: 1 }], {}]) {
    await r.failPoint({ mode: "alwaysOn", data: { failCommands, errorCode: 2 } });
    t.is(await c.findOne({}), null);
  }
  t.is((await r.failPoint({ mode: "off" })).ok, 1);
});

test("command aliases are selected by any of their names (isMaster fails hello)", async (t) => {
  const r = await rig(t);
  const db = (await r.client()).db("admin");
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["isMaster"], errorCode: 2 } });
  t.is((await serverError(db.command({ hello: 1 }))).code, 2);
});

test("failInternalCommands: a connection that announced internalClient is failed only when it is set", async (t) => {
  const r = await rig(t);
  const engine = r.server.engine;
  const internal = { id: 1000, remoteAddress: "internal" };
  await engine.runCommand("admin", { hello: 1, internalClient: { minWireVersion: 0, maxWireVersion: 21 }, client: { driver: { name: "x", version: "1" } } }, internal);
  await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["ping"], errorCode: 2 } });
  t.is((await engine.runCommand("admin", { ping: 1 }, internal))["ok"], 1);
  t.is((await engine.runCommand("admin", { ping: 1 }))["code"], 2, "an ordinary connection is failed");
  await r.failPoint({ mode: "alwaysOn", data: { failCommands: ["ping"], errorCode: 2, failInternalCommands: true } });
  t.is((await engine.runCommand("admin", { ping: 1 }, internal))["code"], 2);
});

test("writeConcernError: the write is applied and reported failed; a retriable one is retried and answered from the first attempt", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], writeConcernError: { code: 91, errmsg: "Replication is being shut down" } } });
  await c.insertOne({ _id: 1 });
  t.is(r.started("insert"), 2);
  t.deepEqual(await c.find().toArray(), [{ _id: 1 }]);
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], writeConcernError: { code: 100, errmsg: "Not enough data-bearing nodes" } } });
  await t.throwsAsync(c.insertOne({ _id: 2 }), { instanceOf: MongoWriteConcernError });
  t.is(r.started("insert"), 3);
  t.is(await c.countDocuments({ _id: 2 }), 1, "the write itself happened");
});

test("failGetMoreAfterCursorCheckout fails the getMore with the code and kills the cursor; maxTimeAlwaysTimeOut fails commands with maxTimeMS", async (t) => {
  const r = await rig(t);
  const client = await r.client();
  const db = client.db("app");
  await db.collection<Row>("c").insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 4 }, { _id: 5 }]);
  const first = await db.command({ find: "c", batchSize: 1 });
  const id = first["cursor"]["id"];
  // Narrowed as failCommand is (another app, another collection): this getMore is not failed.
  for (const narrowed of [{ appName: "someone-else" }, { namespace: "app.other" }]) {
    await client.db("admin").command({ configureFailPoint: "failGetMoreAfterCursorCheckout", mode: "alwaysOn", data: { errorCode: 96, ...narrowed } });
    t.is((await db.command({ getMore: id, collection: "c", batchSize: 1 }))["ok"], 1, JSON.stringify(narrowed));
  }
  await client.db("admin").command({ configureFailPoint: "failGetMoreAfterCursorCheckout", mode: { times: 1 }, data: { errorCode: 96, namespace: "app.c" } });
  t.is((await serverError(db.command({ getMore: id, collection: "c" }))).code, 96);
  t.is((await serverError(db.command({ getMore: id, collection: "c" }))).code, 43, "the cursor is gone");

  await client.db("admin").command({ configureFailPoint: "maxTimeAlwaysTimeOut", mode: { times: 1 } });
  t.is((await serverError(db.collection<Row>("c").find({}, { maxTimeMS: 10_000 }).toArray())).code, 50);
  t.is((await db.collection<Row>("c").find({}, { maxTimeMS: 10_000 }).toArray()).length, 5);
});

test("a change stream's getMore failed by failGetMoreAfterCursorCheckout is labelled ResumableChangeStreamError and resumed; by failCommand it is not (as mongod: SERVER-46091)", async (t) => {
  const r = await rig(t);
  const c = (await r.client()).db("app").collection<Row>("c");
  const stream = c.watch();
  const first = stream.next();
  await new Promise((resolve) => setTimeout(resolve, 50));
  // After the cursor's checkout mongod knows it is a change stream, and labels the error.
  await r.failPoint({ configureFailPoint: "failGetMoreAfterCursorCheckout", mode: { times: 1 }, data: { errorCode: 10107 } });
  // The getMore waiting when the point was set may deliver the first insert; the one after it
  // is issued with the point set, so it fails and the driver resumes before the second.
  await c.insertOne({ _id: 1 });
  t.deepEqual(((await first) as Document)["documentKey"], { _id: 1 });
  await c.insertOne({ _id: 2 });
  t.deepEqual(((await stream.next()) as Document)["documentKey"], { _id: 2 });
  t.is(r.started("aggregate"), 2, "the driver re-opened the stream");
  await stream.close();

  // failCommand fails the getMore before the checkout: no label, so the driver does not resume.
  const unlabelled = c.watch();
  const next = unlabelled.next();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 10107 } });
  await c.insertOne({ _id: 3 });
  await next.catch(() => undefined);
  const error = await serverError(unlabelled.next());
  t.is(error.code, 10107);
  t.false(error.hasErrorLabel("ResumableChangeStreamError"));
  await unlabelled.close();
});

test("inside a transaction an injected transient code carries TransientTransactionError and leaves the transaction open", async (t) => {
  const r = await rig(t);
  const client = await r.client();
  const c = client.db("app").collection<Row>("c");
  await c.insertOne({ _id: 0 });
  const session = client.startSession();
  t.teardown(() => session.endSession());
  session.startTransaction();
  await c.insertOne({ _id: 1 }, { session });
  await r.failPoint({ mode: { times: 1 }, data: { failCommands: ["insert"], errorCode: 112 } });
  const error = await serverError(c.insertOne({ _id: 2 }, { session }));
  t.true(error.hasErrorLabel("TransientTransactionError"));
  await session.commitTransaction();
  t.is(await c.countDocuments(), 2);
});
