// GET /healthz and /readyz as a load balancer uses them: unauthenticated, over HTTP, on the test
// database, with and without a real redis-server behind CACHE_URL.
import test from "ava";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { HttpErrors, LIVENESS_PATH, READINESS_PATH, type SvcLogger } from "../../index.js";
import { startTestRedis } from "../../test/support/redis-server.js";

test.after.always(() => stopTestDatabase());

interface Logged {
  debug: string[];
  info: string[];
  warn: string[];
}

async function probedApp(t: import("ava").ExecutionContext, env: Record<string, string> = {}) {
  const logged: Logged = { debug: [], info: [], warn: [] };
  const logger: SvcLogger = {
    debug: (message) => void logged.debug.push(message),
    info: (message) => void logged.info.push(message),
    warn: (message) => void logged.warn.push(message),
    error: (message) => void logged.warn.push(message),
  };
  const app = await createTestApp({ env, logger });
  const http = await app.build();
  t.teardown(() => app.stop());
  return { http, logged };
}

test("liveness and readiness answer anyone, are never cached, and are logged at debug while they succeed", async (t) => {
  const { http, logged } = await probedApp(t);
  const alive = await request(http).get(LIVENESS_PATH).expect(200);
  t.deepEqual(alive.body, { data: { status: "ok" } });
  t.is(alive.headers["cache-control"], "no-store");
  const ready = await request(http).get(READINESS_PATH).expect(200);
  t.deepEqual(ready.body, { data: { status: "ready", checks: { database: "ok" } } });
  t.is(ready.headers["cache-control"], "no-store");
  t.true(logged.debug.some((line) => line.startsWith(`GET ${READINESS_PATH} 200`)), logged.debug.join("\n"));
  t.false(logged.info.some((line) => line.includes(LIVENESS_PATH) || line.includes(READINESS_PATH)), logged.info.join("\n"));
});

test("with CACHE_URL, readiness pings Redis too; while it is away the instance is not ready, and says only which dependency", async (t) => {
  const redis = await startTestRedis();
  t.teardown(() => redis.stop());
  const { http, logged } = await probedApp(t, { CACHE_URL: redis.url });
  t.deepEqual((await request(http).get(READINESS_PATH).expect(200)).body.data.checks, { database: "ok", redis: "ok" });

  await redis.stop();
  const refused = await request(http).get(READINESS_PATH).expect(503);
  t.is(refused.body.errors[0].code, HttpErrors.NOT_READY.code);
  t.deepEqual(refused.body.errors[0].meta, { checks: { database: "ok", redis: "failed" } });
  t.is(refused.body.errors[0].detail, "Not answering: redis");
  t.is(refused.headers["cache-control"], "no-store");
  // The reason is the operator's, in the log; the prober learns nothing more than "failed".
  t.true(logged.warn.some((line) => line.startsWith("Not ready: redis: ")), logged.warn.join("\n"));
  // A failing probe's request line is not quiet.
  t.true(logged.info.some((line) => line.startsWith(`GET ${READINESS_PATH} 503`)), logged.info.join("\n"));
  // Still alive: an orchestrator should wait, not restart the process.
  await request(http).get(LIVENESS_PATH).expect(200);
});

test("the probes are documented, tagged, and need no credentials", async (t) => {
  const { http } = await probedApp(t);
  const document = (await request(http).get("/openapi.json").expect(200)).body;
  t.is(document.paths[LIVENESS_PATH].get.operationId, "checkLiveness");
  t.is(document.paths[READINESS_PATH].get.operationId, "checkReadiness");
  t.deepEqual(document.paths[READINESS_PATH].get.security, [{}]);
  t.truthy(document.paths[READINESS_PATH].get.responses["503"]);
  t.true(document.tags.some((tag: { name: string }) => tag.name === "probes"));
});
