import test from "ava";
import nock from "nock";
import express from "express";
import mongoose from "mongoose";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { modelRouter, Permissions } from "../../index.js";
import { correlationMiddleware } from "./correlation-middleware.js";
import { createSvcLogger } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";
import { requestLoggingMiddleware } from "./request-logging-middleware.js";
import { AUTHENTICATION_MIDDLEWARE } from "../../contracts/http.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";

const tokens = new TokenMap();

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
test.after.always(() => stopTestDatabase());

/** A clock that advances by `step` ms on every read: the request "takes" exactly `step` ms. */
function steppingClock(step: number) {
  let now = 0;
  return () => (now += step);
}

function app(options: { step: number; threshold: number; logAll?: boolean; logBodies?: boolean }) {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const server = express();
  server.use(correlationMiddleware());
  server.use(express.json());
  server.use(
    requestLoggingMiddleware({
      logger,
      now: steppingClock(options.step),
      slowRequestThresholdMs: options.threshold,
      logAllRequests: options.logAll,
      logBodies: options.logBodies,
    }),
  );
  server.post("/echo", (req, res) => res.json(req.body));
  return { server, capture };
}

test("a request at the threshold is not slow; above it is", async (t) => {
  const atThreshold = app({ step: 3000, threshold: 3000 });
  await request(atThreshold.server).post("/echo").send({ a: 1 }).expect(200);
  t.like(atThreshold.capture.lines[0], { level: "info", durationMs: 3000 });
  const above = app({ step: 3001, threshold: 3000 });
  await request(above.server).post("/echo").send({ a: 1 }).expect(200);
  t.like(above.capture.lines[0], { level: "warn", slow: true, durationMs: 3001 });
});

test("bodies can be left out of request lines", async (t) => {
  const { server, capture } = app({ step: 1, threshold: 3000, logBodies: false });
  await request(server).post("/echo").send({ password: "x" }).expect(200);
  t.is(capture.lines[0]!.body, undefined);
});

test("with logAllRequests false only slow requests are logged", async (t) => {
  const fast = app({ step: 1, threshold: 3000, logAll: false });
  await request(fast.server).post("/echo").send({}).expect(200);
  t.is(fast.capture.lines.length, 0);
  const slow = app({ step: 5000, threshold: 3000, logAll: false });
  await request(slow.server).post("/echo").send({}).expect(200);
  t.is(slow.capture.lines.length, 1);
});

test("bodies lose every secret-looking field at any depth, not only passwords", async (t) => {
  const { server, capture } = app({ step: 1, threshold: 3000 });
  const body = {
    email: "a@b.c",
    password: "pw-secret",
    passwordConfirmation: "pw-secret",
    client: { clientSecret: "cs-secret", apiKey: "ak-secret", private_key: "pk-secret" },
    grants: [{ accessToken: "at-secret", refresh_token: "rt-secret", idToken: "it-secret", scope: "read" }],
    mfa: { otp: "123456", verificationCode: "654321" },
    headers: { Authorization: "Bearer hdr-secret", Cookie: "sid=ck-secret", "X-Api-Key": "xk-secret" },
    monkey: "banana",
    sortKey: "title",
  };
  await request(server).post("/echo").send(body).expect(200);
  const line = capture.lines[0]!;
  for (const secret of ["pw-secret", "cs-secret", "ak-secret", "pk-secret", "at-secret", "rt-secret", "it-secret", "123456", "654321", "hdr-secret", "ck-secret", "xk-secret"]) {
    t.false(capture.text().includes(secret), secret);
  }
  t.like(line.body, {
    email: "a@b.c",
    password: "[REDACTED]",
    client: { clientSecret: "[REDACTED]", apiKey: "[REDACTED]", private_key: "[REDACTED]" },
    headers: { Authorization: "[REDACTED]", Cookie: "[REDACTED]", "X-Api-Key": "[REDACTED]" },
    monkey: "banana",
    sortKey: "title",
  });
  t.deepEqual((line.body as { grants: unknown[] }).grants, [{ accessToken: "[REDACTED]", refresh_token: "[REDACTED]", idToken: "[REDACTED]", scope: "read" }]);
});

test("lines name the full path, router mount prefixes included, with secret query parameters redacted", async (t) => {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const server = express();
  server.use(correlationMiddleware());
  server.use(requestLoggingMiddleware({ logger, now: steppingClock(1) }));
  const items = express.Router();
  items.get("/:id", (req, res) => res.json({ id: req.params.id }));
  const v1 = express.Router();
  v1.use("/items", items);
  server.use("/api/v1", v1);
  await request(server).get("/api/v1/items/42?access_token=at-secret&view=full").expect(200);
  t.like(capture.lines[0], { message: "GET /api/v1/items/42?access_token=%5BREDACTED%5D&view=full 200 1ms", url: "/api/v1/items/42?access_token=%5BREDACTED%5D&view=full" });
  t.false(capture.text().includes("at-secret"));
});

test("model router requests are logged with their mount path on the real stack", async (t) => {
  const Note = mongoose.models.LoggedPathNote ?? mongoose.model("LoggedPathNote", new mongoose.Schema({ title: String }));
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const open = [Permissions.IsAny];
  const svcApp = (await createTestApp({ logger })).register(
    modelRouter("/notes", Note, { permissions: { list: open, create: open, read: open, update: open, delete: open } }),
  );
  t.teardown(() => svcApp.stop());
  const http = await svcApp.build();
  const created = await request(http).post("/notes").send({ title: "a" }).expect(201);
  const id = (created.body as { data: { id: string } }).data.id;
  await request(http).get(`/notes/${id}?apiKey=ak-secret`).expect(200);
  const lines = capture.lines.filter((line) => typeof line.url === "string");
  t.like(lines[0], { method: "POST", url: "/notes", status: 201 });
  t.like(lines[1], { method: "GET", url: `/notes/${id}?apiKey=%5BREDACTED%5D`, status: 200 });
  t.true(lines[1]!.message.startsWith(`GET /notes/${id}?apiKey=%5BREDACTED%5D 200 `));
  t.false(capture.text().includes("ak-secret"));
});

test("a create's request line shows the body the client sent, not the owner the server added", async (t) => {
  const schema = new mongoose.Schema({ title: { type: String, description: "Title" }, ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Owner" } });
  const Memo = mongoose.models.LoggedOwnedMemo ?? mongoose.model("LoggedOwnedMemo", schema);
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const signedIn = [Permissions.IsAuthenticated];
  const svcApp = (await createTestApp({ logger }))
    .register(modelRouter("/memos", Memo, { permissions: { list: signedIn, create: signedIn, read: signedIn, update: signedIn, delete: signedIn } }))
    .override(AUTHENTICATION_MIDDLEWARE, { useValue: tokens.middleware() });
  t.teardown(() => svcApp.stop());
  const http = await svcApp.build();
  const ada = tokens.user("ada");
  const created = await request(http).post("/memos").set("Authorization", ada.auth).send({ title: "a" }).expect(201);
  t.is(created.body.data.ownerId, ada.user.id, "the record has its owner");
  const line = capture.lines.find((entry) => entry.url === "/memos" && entry.method === "POST");
  t.deepEqual(line?.body, { title: "a" });
});
