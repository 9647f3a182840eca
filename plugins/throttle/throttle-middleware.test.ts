// `throttle()` on hand-written routes and the THROTTLE_STORE port, as a project uses them
// (through the package's exports, over HTTP, on the test database).
import test from "ava";
import type { Express } from "express";
import mongoose from "mongoose";
import { RateLimiterMemory, RateLimiterMongo } from "rate-limiter-flexible";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { HTTP_ROUTER, HttpErrors, THROTTLE_STORE, throttle, type SvcLogger, type SvcPlugin, type ThrottleStore } from "../../index.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";

test.after.always(() => stopTestDatabase());

const tokens = new TokenMap();

let scopes = 0;
/** A plugin serving `POST /exports` and `POST /exports/again`, both spending the one `scope` budget. */
function exportsPlugin(scope: string): SvcPlugin {
  return {
    name: "exports",
    dependsOn: ["database"],
    start(ctx) {
      const limit = throttle(ctx, scope, { user: "2/minute", anonymous: "1/minute" });
      const http = ctx.resolve(HTTP_ROUTER);
      http.post("/exports", limit, (_req, res) => void res.status(202).json({ data: { queued: true } }));
      http.post("/exports/again", limit, (_req, res) => void res.status(202).json({ data: { queued: true } }));
    },
  };
}

async function exportsApp(t: import("ava").ExecutionContext, scope: string, setup: { store?: ThrottleStore; logger?: SvcLogger } = {}): Promise<Express> {
  const app = (await createTestApp(setup.logger ? { logger: setup.logger } : {})).register(tokens.plugin()).register(exportsPlugin(scope));
  if (setup.store) app.override(THROTTLE_STORE, { useValue: setup.store });
  const http = await app.build();
  t.teardown(() => app.stop());
  return http;
}

test("a throttled route: users by id, anonymous callers by IP, routes of one scope share its budget", async (t) => {
  const http = await exportsApp(t, `exports-${++scopes}`);
  const frank = tokens.user("frank-exports");
  await request(http).post("/exports").set("Authorization", frank.auth).send({}).expect(202);
  await request(http).post("/exports/again").set("Authorization", frank.auth).send({}).expect(202);
  const refused = await request(http).post("/exports").set("Authorization", frank.auth).send({}).expect(429);
  t.is(refused.body.errors[0].code, HttpErrors.RATE_LIMITED.code);
  t.is(refused.headers["retry-after"], String(refused.body.errors[0].meta.retryAfterSeconds));

  await request(http).post("/exports").send({}).expect(202);
  t.is((await request(http).post("/exports/again").send({}).expect(429)).body.errors[0].code, HttpErrors.RATE_LIMITED.code);
  // The users' budgets are their own.
  await request(http).post("/exports").set("Authorization", tokens.user("gina-exports").auth).send({}).expect(202);
});

test("bound to a store in the database, apps serving the same clients spend one budget", async (t) => {
  const scope = `exports-${++scopes}`;
  // One collection for every budget: the key prefix keeps them apart.
  const store: ThrottleStore = (budget) => new RateLimiterMongo({ storeClient: mongoose.connection, tableName: "svc_throttle", ...budget });
  const [one, two] = [await exportsApp(t, scope, { store }), await exportsApp(t, scope, { store })];
  const hana = tokens.user("hana-exports");
  await request(one).post("/exports").set("Authorization", hana.auth).send({}).expect(202);
  await request(two).post("/exports").set("Authorization", hana.auth).send({}).expect(202);
  t.is((await request(one).post("/exports").set("Authorization", hana.auth).send({}).expect(429)).body.errors[0].code, HttpErrors.RATE_LIMITED.code);
  t.is((await request(two).post("/exports").set("Authorization", hana.auth).send({}).expect(429)).body.errors[0].code, HttpErrors.RATE_LIMITED.code);

  // Counted in memory (the default), each app has a budget of its own.
  const memoryScope = `exports-${++scopes}`;
  const [three, four] = [await exportsApp(t, memoryScope), await exportsApp(t, memoryScope)];
  for (const http of [three, four, three, four]) await request(http).post("/exports").set("Authorization", hana.auth).send({}).expect(202);
});

test("a store that fails lets requests through and says so in the log, once", async (t) => {
  const warnings: string[] = [];
  const logger: SvcLogger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} };
  // A store whose backend is down: every count rejects with the driver's error, not a refusal.
  class Unreachable extends RateLimiterMemory {
    override consume(): never {
      throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
    }
  }
  const http = await exportsApp(t, `exports-${++scopes}`, { logger, store: (budget) => new Unreachable(budget) });
  const ivan = tokens.user("ivan-exports");
  for (let i = 0; i < 4; i++) await request(http).post("/exports").set("Authorization", ivan.auth).send({}).expect(202);
  const failures = warnings.filter((warning) => warning.includes("ECONNREFUSED"));
  t.is(failures.length, 1, failures.join("\n"));
  t.regex(failures[0]!, /requests go through unthrottled/);
});
