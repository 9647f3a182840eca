import test from "ava";
import nock from "nock";
import { EventEmitter } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import request from "supertest";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { DATABASE, type Database } from "../../contracts/database.js";
import { ERROR_TRACKER } from "../../contracts/error-tracker.js";
import { AUTHENTICATION_MIDDLEWARE, HTTP_ROUTER } from "../../contracts/http.js";
import { APIError } from "../../kernel/api-error.js";
import { loadConfig } from "../../kernel/config.js";
import { SvcKernel } from "../../kernel/kernel.js";
import { LOGGER } from "../../kernel/logger.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { createSvcLogger } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";
import { loggingPlugin } from "./logging-plugin.js";
import { getRequestContext } from "../../kernel/request-context.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

const routes: SvcPlugin = {
  name: "test-routes",
  start(ctx) {
    const router = ctx.resolve(HTTP_ROUTER);
    router.post("/signup", (req, res) => res.status(201).json({ data: { email: (req.body as { email: string }).email } }));
    router.get("/slow", async (_req, res) => {
      await sleep(5);
      res.json({ data: "done" });
    });
    router.get("/boom", () => {
      throw new Error("kaboom");
    });
    router.get("/missing", () => {
      throw new APIError({ status: 404, title: "Not found", code: "THING_NOT_FOUND" });
    });
    router.get("/conflict", () => {
      throw new APIError({ status: 409, title: "Conflict", code: "THING_CONFLICT" });
    });
  },
};

/** Stands in for the auth plugin: it sets the user id on the request context, as auth will. */
const fakeAuth: SvcPlugin = {
  name: "fake-auth",
  register(ctx) {
    ctx.container.bind(AUTHENTICATION_MIDDLEWARE, {
      useValue: (req, _res, next) => {
        const user = req.headers["x-test-user"];
        if (typeof user === "string") getRequestContext()!.userId = user;
        next();
      },
    });
  },
};

async function appWith(env: Record<string, string> = {}) {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, disableFileLogging: true, transports: [capture] });
  const tracker = new InMemoryErrorTracker();
  const app = new SvcApp({ env: { NODE_ENV: "test", ...env }, database: false, handleSignals: false, logger })
    .register(routes)
    .register(fakeAuth)
    .override(ERROR_TRACKER, { useValue: tracker });
  const http = await app.build();
  return { app, http, capture, tracker };
}

test("every request is logged once, with the request id, status and a redacted body", async (t) => {
  const { app, http, capture } = await appWith();
  t.teardown(() => app.stop());
  await request(http)
    .post("/signup?token=query-secret")
    .set("X-Request-ID", "req-signup")
    .set("App-Version", "2.0.1")
    .send({ email: "a@b.c", password: "hunter2-secret", profile: { apiKey: "key-secret", tokens: [{ refreshToken: "rt-secret" }] } })
    .expect(201);
  await sleep(0);
  const lines = capture.lines.filter((line) => line.requestId === "req-signup");
  t.is(lines.length, 1);
  t.like(lines[0], { level: "info", method: "POST", status: 201, app_version: "2.0.1", svcRequestLog: { requestId: "req-signup", userId: null } });
  t.like(lines[0]!.body, { email: "a@b.c", password: "[REDACTED]", profile: { apiKey: "[REDACTED]" } });
  for (const secret of ["hunter2-secret", "key-secret", "rt-secret", "query-secret"]) t.false(capture.text().includes(secret), secret);
});

test("the authenticated user id joins the request line", async (t) => {
  const { app, http, capture } = await appWith();
  t.teardown(() => app.stop());
  await request(http).post("/signup").set("X-Request-ID", "req-user").set("x-test-user", "user-7").send({ email: "x@y.z" }).expect(201);
  await sleep(0);
  const line = capture.lines.find((entry) => entry.requestId === "req-user");
  t.like(line, { userId: "user-7", svcRequestLog: { requestId: "req-user", userId: "user-7" } });
});

test("DISABLE_LOG_ALL_REQUESTS turns request lines off", async (t) => {
  const { app, http, capture } = await appWith({ DISABLE_LOG_ALL_REQUESTS: "true" });
  t.teardown(() => app.stop());
  await request(http).post("/signup").set("X-Request-ID", "req-quiet").send({ email: "a@b.c" }).expect(201);
  await sleep(0);
  t.is(capture.lines.filter((line) => line.requestId === "req-quiet").length, 0);
});

test("requests above SLOW_REQUEST_THRESHOLD_MS get a warning, even with request logging off", async (t) => {
  const { app, http, capture } = await appWith({ DISABLE_LOG_ALL_REQUESTS: "true", SLOW_REQUEST_THRESHOLD_MS: "0" });
  t.teardown(() => app.stop());
  await request(http).get("/slow").set("X-Request-ID", "req-slow").expect(200);
  await sleep(0);
  const lines = capture.lines.filter((line) => line.requestId === "req-slow");
  t.is(lines.length, 1);
  t.like(lines[0], { level: "warn", slow: true, slowRequestThresholdMs: 0, status: 200 });
});

test("5xx errors are reported with the request id, user id and app_version; 4xx never", async (t) => {
  const { app, http, tracker } = await appWith();
  t.teardown(() => app.stop());
  await request(http).get("/boom").set("X-Request-ID", "req-boom").set("App-Version", "3.1.4").set("x-test-user", "user-9").expect(500);
  await request(http).get("/missing").expect(404);
  await request(http).get("/conflict").expect(409);
  await request(http).get("/no-such-route").expect(404);
  t.is(tracker.exceptions.length, 1);
  t.is((tracker.exceptions[0]!.error as Error).message, "kaboom");
  t.like(tracker.exceptions[0]!.context, { requestId: "req-boom", appVersion: "3.1.4", userId: "user-9" });
});

test("with USE_ERRORTRACKER_LOGGING the app's log lines are mirrored to the tracker while it runs", async (t) => {
  const { app, http, tracker } = await appWith({ USE_ERRORTRACKER_LOGGING: "true", ERRORTRACKER_DSN: "https://k@o1.ingest.example.com/1" });
  await request(http).post("/signup").set("X-Request-ID", "req-mirror").send({ email: "a@b.c", password: "never-mirrored" }).expect(201);
  await sleep(0);
  const mirrored = tracker.logs.find((entry) => entry.attributes?.requestId === "req-mirror");
  t.truthy(mirrored);
  t.is(mirrored!.level, "info");
  t.false(JSON.stringify(tracker.logs).includes("never-mirrored"));
  await app.stop();
  const count = tracker.logs.length;
  (app.kernel.pluginContext.logger as { info(message: string): void }).info("after stop");
  t.is(tracker.logs.length, count);
});

test("the default tracker is bound and closed with the app; no database is needed", async (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, handleSignals: false });
  await app.build();
  const tracker = app.kernel.container.resolve(ERROR_TRACKER);
  t.notThrows(() => tracker.captureException(new Error("dropped")));
  await app.stop();
});

test("slow database operations on the app's connection are logged with collection and operation", async (t) => {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const client = new EventEmitter();
  const database: SvcPlugin = {
    name: "database",
    register(ctx) {
      ctx.container.bind(DATABASE, {
        useValue: { connection: { getClient: () => client }, kind: "external", displayUri: "mongodb://x" } as unknown as Database,
      });
    },
  };
  const kernel = new SvcKernel({ config: loadConfig({ NODE_ENV: "test", SLOW_DB_QUERY_THRESHOLD_MS: "100" }), logger });
  kernel.container.bind(LOGGER, { useValue: logger });
  kernel.add(loggingPlugin({ database: true })).add(database);
  await kernel.start();
  t.deepEqual(kernel.startOrder, ["database", "logging"]);
  client.emit("commandStarted", { requestId: 1, commandName: "find", databaseName: "app", command: { find: "users", filter: {} } });
  client.emit("commandSucceeded", { requestId: 1, commandName: "find", duration: 250 });
  client.emit("commandStarted", { requestId: 2, commandName: "insert", databaseName: "app", command: { insert: "orders" } });
  client.emit("commandSucceeded", { requestId: 2, commandName: "insert", duration: 20 });
  t.is(capture.lines.length, 1);
  t.like(capture.lines[0], { level: "warn", collection: "users", operation: "find", database: "app", durationMs: 250, slowDbQueryThresholdMs: 100 });
  await kernel.stop();
  t.is(client.listenerCount("commandStarted"), 0);
});
