// Idempotency-Key on modelRouter creates and on hand-written routes, used as a project would:
// through the package's exports, over the real HTTP stack, on the test database.
import test, { type ExecutionContext } from "ava";
import type { Express } from "express";
import mongoose from "mongoose";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import {
  defaultPlugins,
  documentIdempotency,
  HTTP_ROUTER,
  IdempotencyErrors,
  idempotencyKeyModel,
  idempotent,
  modelRouter,
  OwnerQueryFilter,
  Permissions,
  type ModelRouterOptions,
  type SvcPlugin,
} from "../../index.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";

test.after.always(() => stopTestDatabase());

interface OrderFields {
  item: string;
  ownerId?: mongoose.Types.ObjectId;
}
const schema = new mongoose.Schema<OrderFields>(
  {
    item: { type: String, required: true, maxlength: 100, description: "What was ordered" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Who ordered it" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const Order = mongoose.model("IdempotentOrder", schema);

const tokens = new TokenMap();
const signedIn = [Permissions.IsAuthenticated];
const owner = [Permissions.IsOwner];
const anyone = [Permissions.IsAny];

let paths = 0;
const nextPath = () => `/orders-${++paths}`;
const ordersRouter = (path: string, options: Partial<ModelRouterOptions<OrderFields>> = {}) =>
  modelRouter(path, Order, { permissions: { list: signedIn, create: signedIn, read: owner, update: owner, delete: owner }, queryFilter: OwnerQueryFilter, ...options });

/** An app serving orders at a path of its own, plus whatever plugins the test adds. */
async function ordersApp(t: ExecutionContext, options: Partial<ModelRouterOptions<OrderFields>> = {}, ...plugins: SvcPlugin[]): Promise<{ http: Express; path: string }> {
  const path = nextPath();
  let app = (await createTestApp()).register(tokens.plugin()).register(ordersRouter(path, options));
  for (const plugin of plugins) app = app.register(plugin);
  const http = await app.build();
  t.teardown(() => app.stop());
  return { http, path };
}

const countItems = (item: string) => Order.countDocuments({ item });
const errorCode = (response: request.Response) => response.body.errors?.[0]?.code as string | undefined;

test("a create sent again with its key is answered from the first, and creates nothing", async (t) => {
  const { http, path } = await ordersApp(t);
  const alice = tokens.user("alice-retry");
  const send = () => request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", "order-1-7c0f").send({ item: "retried" });

  const first = await send().expect(201);
  t.false("idempotent-replayed" in first.headers);
  const again = await send().expect(201);
  t.is(again.headers["idempotent-replayed"], "true");
  t.deepEqual(again.body, first.body);
  t.is(again.headers.location, first.headers.location);
  t.regex(again.headers["content-type"], /^application\/json/);
  t.is(await countItems("retried"), 1);
  // Without a key every POST is a new order, as before.
  await request(http).post(path).set("Authorization", alice.auth).send({ item: "retried" }).expect(201);
  t.is(await countItems("retried"), 2);
});

test("the same key with another body or on another route is 422, and writes nothing", async (t) => {
  const otherPath = nextPath();
  const { http, path } = await ordersApp(t, {}, ordersRouter(otherPath));
  const alice = tokens.user("alice-reuse");
  const send = (to: string, item: string) => request(http).post(to).set("Authorization", alice.auth).set("Idempotency-Key", "reused-key").send({ item });

  await send(path, "first body").expect(201);
  const otherBody = await send(path, "second body").expect(422);
  t.is(errorCode(otherBody), IdempotencyErrors.KEY_REUSED.code);
  t.is(typeof otherBody.body.requestId, "string");
  t.is(errorCode(await send(otherPath, "first body").expect(422)), IdempotencyErrors.KEY_REUSED.code);
  t.is(await countItems("first body"), 1);
  t.is(await countItems("second body"), 0);
});

test("keys are per caller: another user's same key is their own request, never a replay of someone else's answer", async (t) => {
  const { http, path } = await ordersApp(t, { permissions: { list: signedIn, create: anyone, read: owner, update: owner, delete: owner } });
  const alice = tokens.user("alice-scope");
  const bob = tokens.user("bob-scope");
  const send = (auth?: string) => {
    const call = request(http).post(path).set("Idempotency-Key", "shared-key").send({ item: "scoped" });
    return auth ? call.set("Authorization", auth) : call;
  };

  const forAlice = await send(alice.auth).expect(201);
  const forBob = await send(bob.auth).expect(201);
  const forAnonymous = await send().expect(201);
  t.false("idempotent-replayed" in forBob.headers);
  t.false("idempotent-replayed" in forAnonymous.headers);
  t.not(forBob.body.data.id, forAlice.body.data.id);
  t.is(forBob.body.data.ownerId, bob.user.id);
  t.is(await countItems("scoped"), 3);
  // The anonymous caller's key is its address's: its retry is a replay.
  t.is((await send().expect(201)).headers["idempotent-replayed"], "true");
  t.is(await countItems("scoped"), 3);
});

test("concurrent requests with one key create once: the others get its answer or 409 with Retry-After", async (t) => {
  const { http, path } = await ordersApp(t);
  const alice = tokens.user("alice-race");
  const responses = await Promise.all(
    Array.from({ length: 12 }, () => request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", "double-click").send({ item: "raced" })),
  );

  t.is(await countItems("raced"), 1);
  const created = responses.filter((response) => response.status === 201);
  t.is(created.filter((response) => !("idempotent-replayed" in response.headers)).length, 1);
  t.true(new Set(created.map((response) => response.body.data.id)).size === 1);
  for (const response of responses.filter((answer) => answer.status !== 201)) {
    t.is(response.status, 409);
    t.is(errorCode(response), IdempotencyErrors.IN_PROGRESS.code);
    t.is(response.headers["retry-after"], "1");
  }
  // Once answered, a retry is a replay.
  const retry = await request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", "double-click").send({ item: "raced" }).expect(201);
  t.is(retry.headers["idempotent-replayed"], "true");
});

test("client errors are kept for replay; refusals that depend on timing or credentials free the key", async (t) => {
  let open = false;
  const { http, path } = await ordersApp(t, { preCreate: (body) => (open ? body : null) });
  const alice = tokens.user("alice-errors");
  const send = (key: string, body: object) => request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", key).send(body);

  // A validation error is what the same request gets again: replayed.
  const invalid = await send("bad-body", { item: 42, extra: true }).expect(400);
  const invalidAgain = await send("bad-body", { item: 42, extra: true }).expect(400);
  t.is(invalidAgain.headers["idempotent-replayed"], "true");
  t.deepEqual(invalidAgain.body, invalid.body);

  // The preCreate refusal (403) frees the key: once the hook allows it, the retry runs.
  t.false("idempotent-replayed" in (await send("refused-first", { item: "refused then made" }).expect(403)).headers);
  open = true;
  const made = await send("refused-first", { item: "refused then made" }).expect(201);
  t.false("idempotent-replayed" in made.headers);
  t.is(await countItems("refused then made"), 1);

  // 401 frees it too (an expired token, say): the same key signed in runs.
  await request(http).post(path).set("Authorization", "Bearer expired").set("Idempotency-Key", "signed-out").send({ item: "after sign-in" }).expect(401);
  await send("signed-out", { item: "after sign-in" }).expect(201);
  t.is(await countItems("after sign-in"), 1);
});

test("required: a create without a key is 400 and writes nothing; false ignores the header", async (t) => {
  const { http, path } = await ordersApp(t, { idempotency: { required: true, expiresIn: "1h" } });
  const alice = tokens.user("alice-required");
  const missing = await request(http).post(path).set("Authorization", alice.auth).send({ item: "keyless" }).expect(400);
  t.is(errorCode(missing), IdempotencyErrors.KEY_REQUIRED.code);
  t.deepEqual(missing.body.errors[0].source, { parameter: "Idempotency-Key" });
  t.is(await countItems("keyless"), 0);
  await request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", "k").send({ item: "keyless" }).expect(201);

  const { http: plain, path: plainPath } = await ordersApp(t, { idempotency: false });
  for (let i = 0; i < 2; i++) {
    const response = await request(plain).post(plainPath).set("Authorization", alice.auth).set("Idempotency-Key", "ignored").send({ item: "unkeyed" }).expect(201);
    t.false("idempotent-replayed" in response.headers);
  }
  t.is(await countItems("unkeyed"), 2);
});

test("malformed keys are 400 IDEMPOTENCY_KEY_INVALID; a structured-field string is its content", async (t) => {
  const { http, path } = await ordersApp(t);
  const alice = tokens.user("alice-keys");
  const send = (key: string) => request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", key).send({ item: "malformed" });
  for (const key of ["", '""', "x".repeat(256), "two words", "a,b", '{"$ne":null}', "back\\slash", "caf\u00e9"]) {
    const response = await send(key);
    t.is(response.status, 400, key);
    t.is(errorCode(response), IdempotencyErrors.KEY_INVALID.code, key);
  }
  t.is(await countItems("malformed"), 0);
  // Keys are plain strings: operator-looking ones are just keys.
  await send('"$gt"').expect(201);
  t.is((await send("$gt").expect(201)).headers["idempotent-replayed"], "true");
  await send("x".repeat(255)).expect(201);
  t.is(await countItems("malformed"), 2);
  // A header sent twice reaches the app joined by a comma: refused, not half-read.
  const twice = await request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", ["one", "two"] as unknown as string).send({ item: "malformed" });
  t.is(errorCode(twice), IdempotencyErrors.KEY_INVALID.code);
});

test("idempotent() on a hand-written route: server errors and streamed answers free the key; an empty 204 replays", async (t) => {
  const counts = { charges: 0, pings: 0, reports: 0 };
  let failNext = true;
  const payments: SvcPlugin = {
    name: "payments",
    start(ctx) {
      const router = ctx.resolve(HTTP_ROUTER);
      ctx.openapi.addOperation("post", "/payments", documentIdempotency({ summary: "Charge the caller", responses: { 201: { description: "Charged" } } }, { required: true }));
      router.post("/payments", idempotent(ctx, { required: true }), (req, res) => {
        if (failNext) {
          failNext = false;
          throw new Error("the card network is down");
        }
        counts.charges++;
        res.status(201).json({ charged: (req.body as { amount: number }).amount });
      });
      router.post("/pings", idempotent(ctx), (_req, res) => {
        counts.pings++;
        res.status(204).end();
      });
      // A handler bug: it answers, then throws. The client still gets (and a retry replays) the answer.
      router.post("/answered-then-threw", idempotent(ctx), async (_req, res) => {
        res.status(201).json({ done: true });
        throw new Error("cleanup after answering failed");
      });
      router.post("/reports", idempotent(ctx), (_req, res) => {
        counts.reports++;
        res.write("part one, ");
        res.end("part two");
      });
    },
  };
  const { http } = await ordersApp(t, {}, payments);
  const alice = tokens.user("alice-routes");
  const post = (to: string, body: object = {}) => request(http).post(to).set("Authorization", alice.auth).set("Idempotency-Key", `${to}-1`).send(body);

  await post("/payments", { amount: 12 }).expect(500);
  t.is(counts.charges, 0);
  const charged = await post("/payments", { amount: 12 }).expect(201);
  t.deepEqual(charged.body, { charged: 12 });
  t.is((await post("/payments", { amount: 12 }).expect(201)).headers["idempotent-replayed"], "true");
  t.is(counts.charges, 1);
  t.is(errorCode(await request(http).post("/payments").set("Authorization", alice.auth).send({ amount: 12 }).expect(400)), IdempotencyErrors.KEY_REQUIRED.code);
  const documented = (await request(http).get("/openapi.json").expect(200)).body.paths["/payments"].post;
  t.like(documented.parameters[0], { name: "Idempotency-Key", in: "header", required: true });
  t.regex(documented.responses["409"].description, /^Conflict: a request with the same Idempotency-Key/);
  t.truthy(documented.responses["422"]);
  t.truthy(documented.responses["201"].headers["Idempotent-Replayed"]);

  await post("/pings").expect(204);
  const ping = await post("/pings").expect(204);
  t.is(ping.headers["idempotent-replayed"], "true");
  t.is(counts.pings, 1);

  t.deepEqual((await post("/answered-then-threw").expect(201)).body, { done: true });
  const replayed = await post("/answered-then-threw").expect(201);
  t.deepEqual(replayed.body, { done: true });
  t.is(replayed.headers["idempotent-replayed"], "true");

  t.is((await post("/reports").expect(200)).text, "part one, part two");
  t.is((await post("/reports").expect(200)).text, "part one, part two");
  t.is(counts.reports, 2);
});

test("keys are stored per caller with the answer, and expire", async (t) => {
  const { http, path } = await ordersApp(t, { idempotency: { expiresIn: "2h" } });
  const alice = tokens.user("alice-stored");
  const before = Date.now();
  await request(http).post(path).set("Authorization", alice.auth).set("Idempotency-Key", "stored-key").send({ item: "stored" }).expect(201);
  const row = await idempotencyKeyModel().findOne({ scope: `user:${alice.user.id}`, key: "stored-key" }).orFail();
  t.is(row.response?.status, 201);
  t.is(row.claim, undefined);
  t.is(row.lockedUntil, undefined);
  const hours = (row.expiresAt.getTime() - before) / 3_600_000;
  t.true(hours > 1.9 && hours <= 2.01, `expires in ${hours} h`);
});

test("a malformed idempotency setting fails where the router is built", (t) => {
  const build = (idempotency: unknown) => () => ordersRouter("/orders-bad", { idempotency: idempotency as ModelRouterOptions<OrderFields>["idempotency"] });
  for (const [setting, message] of [
    [{ expiresIn: "soon" }, /expiresIn must be a duration/],
    [{ lockFor: 0 }, /lockFor must be a duration/],
    [{ requried: true }, /has no option "requried"/],
    [{ required: "yes" }, /required must be a boolean/],
    ["always", /must be true, false or/],
  ] as const) {
    const error = t.throws(build(setting), { message });
    t.is((error as { code?: string }).code, IdempotencyErrors.INVALID_OPTION.code);
    t.regex(error!.message, /IdempotentOrder \(\/orders-bad\): idempotency/);
  }
});

test("/openapi.json documents the header on creates, with 409, 422 and Idempotent-Replayed", async (t) => {
  const requiredPath = nextPath();
  const plainPath = nextPath();
  const { http, path } = await ordersApp(t, {}, ordersRouter(requiredPath, { idempotency: { required: true } }), ordersRouter(plainPath, { idempotency: false }));
  const { body: document } = await request(http).get("/openapi.json").expect(200);
  const header = (route: string) => (document.paths[route].post.parameters ?? []).find((parameter: { name: string }) => parameter.name === "Idempotency-Key");

  t.like(header(path), { in: "header", required: false, schema: { type: "string", maxLength: 255 } });
  t.is(header(requiredPath).required, true);
  t.is(header(plainPath), undefined);
  const responses = document.paths[path].post.responses;
  t.regex(responses["409"].description, /IDEMPOTENCY_IN_PROGRESS/);
  t.regex(responses["409"].description, /DATABASE_DUPLICATE_KEY/);
  t.regex(responses["422"].description, /IDEMPOTENCY_KEY_REUSED/);
  t.truthy(responses["201"].headers["Idempotent-Replayed"]);
  t.deepEqual(document.paths[plainPath].post.responses["409"], { $ref: "#/components/responses/Conflict" });
});
