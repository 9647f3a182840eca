// CACHE_URL, as a project running several instances uses it: every app connects to one real
// redis-server (Debian's, started here on a free port), and budgets counted there are one budget
// whichever app a request reaches.
import test from "ava";
import mongoose from "mongoose";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { defaultPlugins, HttpErrors, modelRouter, OwnerQueryFilter, Permissions, REDIS_CLIENT, type SvcLogger } from "../../index.js";
import { authTestApp, errorCode, SESSION_ENV, signUpThroughApi, TEST_USER_PASSWORD } from "../../test/support/auth-test-app.js";
import { freePort, startTestRedis } from "../../test/support/redis-server.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { RedisErrors } from "./errors.js";

const redis = startTestRedis();
test.after.always(async () => {
  await (await redis.catch(() => undefined))?.stop();
  await stopTestDatabase();
});

interface MemoFields {
  text: string;
  ownerId?: mongoose.Types.ObjectId;
}
const schema = new mongoose.Schema<MemoFields>(
  { text: { type: String, required: true, description: "Text" }, ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Owner" } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const Memo = mongoose.model("RedisMemo", schema);
const tokens = new TokenMap();

let paths = 0;
/** An app serving memos at `path` with creates throttled to 2 a minute, on CACHE_URL `url`. */
async function memoApp(t: import("ava").ExecutionContext, url: string, path: string, logger?: SvcLogger) {
  const app = (await createTestApp({ env: { CACHE_URL: url }, ...(logger ? { logger } : {}) })).register(tokens.plugin()).register(
    modelRouter(path, Memo, {
      permissions: { list: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated] },
      queryFilter: OwnerQueryFilter,
      throttle: { create: "2/minute" },
    }),
  );
  const http = await app.build();
  t.teardown(() => app.stop());
  return { app, http };
}

test("two instances on one Redis spend one throttle budget", async (t) => {
  const { url } = await redis;
  const path = `/memos-${++paths}`;
  const [one, two] = [await memoApp(t, url, path), await memoApp(t, url, path)];
  const ada = tokens.user("ada-redis");
  const create = (http: typeof one.http) => request(http).post(path).set("Authorization", ada.auth).send({ text: "memo" });
  await create(one.http).expect(201);
  await create(two.http).expect(201);
  t.is(errorCode(await create(one.http).expect(429)), HttpErrors.RATE_LIMITED.code);
  t.is(errorCode(await create(two.http).expect(429)), HttpErrors.RATE_LIMITED.code);
});

test("two instances on one Redis share the login limits", async (t) => {
  const { url } = await redis;
  const limits = { rateLimits: { perAccount: { points: 2, durationSeconds: 60 } } };
  const [one, two] = [await authTestApp(t, limits, { CACHE_URL: url }), await authTestApp(t, limits, { CACHE_URL: url })];
  const { email } = await signUpThroughApi(one.http, "redis-login");
  const login = (http: typeof one.http, password: string) => request(http).post("/auth/login").send({ email, password });
  t.is(errorCode(await login(one.http, "wrong password one").expect(401)), "AUTH_INVALID_CREDENTIALS");
  t.is(errorCode(await login(two.http, "wrong password two").expect(401)), "AUTH_INVALID_CREDENTIALS");
  // The account's budget is spent on both: even the right password waits.
  const refused = await login(one.http, TEST_USER_PASSWORD).expect(429);
  t.is(errorCode(refused), "AUTH_RATE_LIMITED");
  t.truthy(refused.headers["retry-after"]);
  t.is(errorCode(await login(two.http, TEST_USER_PASSWORD).expect(429)), "AUTH_RATE_LIMITED");
});

test("two session-auth instances on one Redis share better-auth's request limit (100 a minute per address and route)", async (t) => {
  const { url } = await redis;
  const options = { sessionAuth: { trustedOrigins: ["https://app.example.com"] } };
  const env = { ...SESSION_ENV, CACHE_URL: url, TRUST_PROXY: "loopback" };
  const [one, two] = [await authTestApp(t, options, env), await authTestApp(t, options, env)];
  const signOut = (http: typeof one.http) => request(http).post("/api/auth/signout").set("X-Forwarded-For", "198.51.100.7").send({});
  // Half the budget on each instance (a sign-out without a session is still a request to count).
  for (let i = 0; i < 50; i++) t.not((await signOut(one.http)).status, 429);
  for (let i = 0; i < 50; i++) t.not((await signOut(two.http)).status, 429);
  const refused = await signOut(one.http).expect(429);
  t.is(errorCode(refused), "AUTH_RATE_LIMITED");
  // Another address has its own budget.
  t.not((await request(two.http).post("/api/auth/signout").set("X-Forwarded-For", "198.51.100.8").send({})).status, 429);
});

test("the connection is the app's REDIS_CLIENT, for plugins and app code", async (t) => {
  const { url } = await redis;
  const { app } = await memoApp(t, url, `/memos-${++paths}`);
  const client = app.resolve(REDIS_CLIENT);
  await client.set("svc-test:greeting", "hello", { EX: 60 });
  t.is(await client.get("svc-test:greeting"), "hello");
});

test("a Redis that cannot be reached fails the start, naming the URL without its password", async (t) => {
  const url = `redis://:hunter2@127.0.0.1:${await freePort()}`;
  const app = await createTestApp({ env: { CACHE_URL: url } });
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.build());
  t.is((error as { code?: string }).code, RedisErrors.UNREACHABLE.code);
  t.true(error.message.includes("CACHE_URL: cannot connect to Redis at redis://:****@127.0.0.1:"), error.message);
  t.false(error.message.includes("hunter2"));
});

test("CACHE_URL must be a redis:// URL", async (t) => {
  const app = await createTestApp({ env: { CACHE_URL: "http://cache.internal:6379" } });
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.build());
  t.is((error as { code?: string }).code, "CONFIG_INVALID_ENVIRONMENT");
  t.regex(error.message, /CACHE_URL/);
});

test("while Redis is away, budgets count in memory: requests are answered, never hang, and the app stops", async (t) => {
  const own = await startTestRedis();
  t.teardown(() => own.stop());
  const path = `/memos-${++paths}`;
  const warnings: string[] = [];
  const logger: SvcLogger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error: (message) => void warnings.push(message) };
  const { app, http } = await memoApp(t, own.url, path, logger);
  const bea = tokens.user("bea-redis");
  const create = () => request(http).post(path).set("Authorization", bea.auth).send({ text: "memo" });
  await create().expect(201);
  await own.stop();
  // Counted in this process from here on: two more creates, then the budget is spent.
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await create()).status);
  t.deepEqual(statuses, [201, 201, 429]);
  t.deepEqual(warnings.filter((warning) => warning.startsWith("Redis at")).length, 1, warnings.join("\n"));
  await app.stop();
});
