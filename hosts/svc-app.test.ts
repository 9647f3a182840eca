import test from "ava";
import express from "express";
import request from "supertest";
import { HTTP_ROUTER } from "../contracts/http.js";
import { APIError } from "../kernel/api-error.js";
import { ConfigErrors } from "../kernel/environment.js";
import { hasErrorCode } from "../kernel/errors.js";
import { KernelErrors } from "../kernel/kernel-errors.js";
import type { SvcPlugin } from "../kernel/plugin.js";
import { EXPOSED_HEADERS, STACK_ORDER, stackLayerNames } from "./http-stack.js";
import { HostErrors, SvcApp } from "./svc-app.js";
import { token } from "../kernel/container.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const env = { NODE_ENV: "test" };

function widgetPlugin(): SvcPlugin {
  return {
    name: "widgets",
    start(ctx) {
      const router = ctx.resolve(HTTP_ROUTER);
      router.get("/widgets", (_req, res) => res.json({ data: [{ name: "a" }] }));
      router.post("/widgets", (req, res) => res.status(201).json({ data: req.body }));
      router.get("/boom", () => {
        throw new Error("database password is hunter2");
      });
      router.get("/teapot", () => {
        throw new APIError({ status: 418, title: "I am a teapot", code: "TEAPOT", detail: "short and stout" });
      });
      ctx.openapi.addOperation("get", "/widgets", { summary: "List widgets", responses: { 200: { description: "OK" } } });
    },
  };
}

async function build(options = {}) {
  const app = new SvcApp({ env, database: false, logger: silent, ...options }).register(widgetPlugin());
  const http = await app.build();
  return { app, http };
}

test("the stack has the documented order", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  t.deepEqual(stackLayerNames(http), [...STACK_ORDER]);
});

test("/openapi.json carries a SHA-256 ETag and answers If-None-Match with 304", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  const first = await request(http).get("/openapi.json").expect(200);
  t.regex(first.headers.etag!, /^"[0-9a-f]{64}"$/);
  t.is(first.body.openapi, "3.1.0");
  t.truthy(first.body.paths["/widgets"].get);
  const again = await request(http).get("/openapi.json").set("If-None-Match", first.headers.etag!).expect(304);
  t.is(again.text, "");
  await request(http).get("/openapi.json").set("If-None-Match", '"stale"').expect(200);
});

test("unknown routes get the JSON 404 shape with the request id", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  const response = await request(http).get("/nope").set("X-Request-ID", "req-123").expect(404);
  t.is(response.headers["x-request-id"], "req-123");
  t.deepEqual(response.body, {
    errors: [{ status: "404", title: "Not found", code: "HTTP_NOT_FOUND", detail: "GET /nope matches no route" }],
    requestId: "req-123",
  });
});

test("an oversized body gets 413 in the error shape", async (t) => {
  const { app, http } = await build({ bodyLimit: 1024 });
  t.teardown(() => app.stop());
  const response = await request(http).post("/widgets").send({ blob: "x".repeat(5000) }).expect(413);
  t.is(response.body.errors[0].status, "413");
  t.is(response.body.errors[0].code, "HTTP_PAYLOAD_TOO_LARGE");
  t.truthy(response.body.requestId);
});

test("bodyLimit takes bytes or a size string like body-parser, fractions included", async (t) => {
  const { app, http } = await build({ bodyLimit: "1.5kb" });
  t.teardown(() => app.stop());
  t.is((await request(http).post("/widgets").send({ blob: "x".repeat(1400) })).status, 201);
  t.is((await request(http).post("/widgets").send({ blob: "x".repeat(1600) })).status, 413, "1.5kb is 1536 bytes");
});

for (const bodyLimit of ["abc", "1 megabyte", "-1mb", "", 0, -1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
  test(`bodyLimit ${typeof bodyLimit === "string" ? JSON.stringify(bodyLimit) : String(bodyLimit)} stops build() with a coded error`, async (t) => {
    const app = new SvcApp({ env, database: false, logger: silent, bodyLimit });
    t.teardown(() => app.stop());
    const error = await t.throwsAsync(app.build());
    t.true(hasErrorCode(error, HostErrors.BODY_LIMIT_INVALID), error?.message);
  });
}

test("more than 1000 query parameters get 413, never a list with the rest dropped", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  const response = await request(http).get(`/widgets?${"&".repeat(1000)}done=true`).expect(413);
  t.is(response.body.errors[0].code, "HTTP_TOO_MANY_QUERY_PARAMETERS");
  t.is(response.body.errors[0].title, "Too many query parameters", "not a body's title");
  t.regex(response.body.errors[0].detail, /more than 1000 parameters/);
  t.truthy(response.body.requestId);
  // 1000 is still served (here by the 404 of an unknown route: the limit is not the route's).
  await request(http).get(`/nope?${Array.from({ length: 1000 }, (_, index) => `p${index}=1`).join("&")}`).expect(404);
});

test("malformed JSON gets 400, not 500", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  const response = await request(http).post("/widgets").set("Content-Type", "application/json").send('{"a":').expect(400);
  t.is(response.body.errors[0].code, "HTTP_MALFORMED_BODY");
});

test("a thrown error becomes an opaque 500 that leaks nothing", async (t) => {
  const logged: Array<{ message: string; meta?: Record<string, unknown> }> = [];
  const logger = { ...silent, error: (message: string, meta?: Record<string, unknown>) => void logged.push({ message, meta }) };
  const { app, http } = await build({ logger });
  t.teardown(() => app.stop());
  const response = await request(http).get("/boom").set("X-Request-ID", "req-500").expect(500);
  t.deepEqual(response.body, {
    errors: [{ status: "500", title: "Internal server error", code: "HTTP_INTERNAL" }],
    requestId: "req-500",
  });
  t.false(response.text.includes("hunter2"));
  t.false(response.text.includes("at "));
  // The details go to the log, tied to the request id.
  t.is(logged.length, 1);
  t.is(logged[0]!.meta?.requestId, "req-500");
  t.regex(String(logged[0]!.meta?.stack), /hunter2/);
});

test("the 500 log line names the full URL with secret query parameters redacted", async (t) => {
  const logged: string[] = [];
  const { app, http } = await build({ logger: { ...silent, error: (message: string) => void logged.push(message) } });
  t.teardown(() => app.stop());
  await request(http).get("/boom?token=s3cr3t-value&page=2").expect(500);
  t.is(logged.length, 1);
  t.regex(logged[0]!, /^GET \/boom\?token=.*page=2 failed/);
  t.false(logged[0]!.includes("s3cr3t-value"));
});

test("APIErrors keep their status, code and detail", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  const response = await request(http).get("/teapot").expect(418);
  t.deepEqual(response.body.errors, [{ status: "418", title: "I am a teapot", code: "TEAPOT", detail: "short and stout" }]);
});

test("host middleware runs before routes and can reject", async (t) => {
  const app = new SvcApp({ env, database: false, logger: silent })
    .register(widgetPlugin())
    .addMiddleware((req, res, next) => {
      res.setHeader("X-Seen", "yes");
      if (req.headers["x-block"]) return next(new APIError({ status: 403, title: "Blocked" }));
      next();
    });
  const http = await app.build();
  t.teardown(() => app.stop());
  const ok = await request(http).get("/widgets").expect(200);
  t.is(ok.headers["x-seen"], "yes");
  await request(http).get("/widgets").set("X-Block", "1").expect(403);
});

test("a plain express Router can be registered", async (t) => {
  const router = express.Router();
  router.get("/ping", (_req, res) => res.json({ data: "pong" }));
  const app = new SvcApp({ env, database: false, logger: silent }).register(router);
  const http = await app.build();
  t.teardown(() => app.stop());
  t.deepEqual((await request(http).get("/ping").expect(200)).body, { data: "pong" });
});

test("registering after build is refused", async (t) => {
  const { app } = await build();
  t.teardown(() => app.stop());
  t.true(hasErrorCode(t.throws(() => app.register(widgetPlugin())), HostErrors.ALREADY_BUILT));
});

test("registering an object with no hook is refused, saying a plugin needs register, start or stop", (t) => {
  const app = new SvcApp({ env, database: false, logger: silent });
  const error = t.throws(() => app.register({ name: "a", dependsOn: ["b"] }));
  t.true(hasErrorCode(error, HostErrors.NOT_REGISTRABLE), String(error));
  t.regex(error!.message, /the object named "a": a plugin needs at least one of register\(\), start\(\) or stop\(\)/);
  t.regex(t.throws(() => app.register(42 as never))!.message, /not a number$/);
});

test("CORS headers are sent by default and can be turned off", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  const response = await request(http).get("/widgets").set("Origin", "https://example.com").expect(200);
  t.is(response.headers["access-control-allow-origin"], "*");
  const off = await build({ cors: false });
  t.teardown(() => off.app.stop());
  const none = await request(off.http).get("/widgets").set("Origin", "https://example.com").expect(200);
  t.false("access-control-allow-origin" in none.headers);
});

test("pages of other origins may send Idempotency-Key and If-Match, and read the headers svc answers with", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  const preflight = await request(http)
    .options("/widgets")
    .set("Origin", "https://app.example.com")
    .set("Access-Control-Request-Method", "POST")
    .set("Access-Control-Request-Headers", "authorization, content-type, idempotency-key, if-match")
    .expect(204);
  t.regex(preflight.headers["access-control-allow-headers"], /idempotency-key/);
  t.regex(preflight.headers["access-control-allow-headers"], /if-match/);
  const answer = await request(http).get("/widgets").set("Origin", "https://app.example.com").expect(200);
  t.deepEqual(answer.headers["access-control-expose-headers"].split(","), [...EXPOSED_HEADERS]);
  t.deepEqual(EXPOSED_HEADERS, ["ETag", "Location", "Retry-After", "Idempotent-Replayed", "X-Request-Id"]);
  // An app's own list replaces them.
  const own = await build({ cors: { exposedHeaders: ["X-Quota-Left"] } });
  t.teardown(() => own.app.stop());
  t.is((await request(own.http).get("/widgets").set("Origin", "https://app.example.com").expect(200)).headers["access-control-expose-headers"], "X-Quota-Left");
});

test("/docs serves the local Swagger UI only when ENABLE_API_DOCS_UI=true", async (t) => {
  const { app, http } = await build();
  t.teardown(() => app.stop());
  await request(http).get("/docs/").expect(404);
  const enabled = await build({ env: { NODE_ENV: "test", ENABLE_API_DOCS_UI: "true" } });
  t.teardown(() => enabled.app.stop());
  await request(enabled.http).get("/docs").expect(301);
  const page = await request(enabled.http).get("/docs/").expect(200);
  t.regex(page.text, /swagger-ui-bundle\.js/);
  t.false(page.text.includes("https://"), "no CDN");
  await request(enabled.http).get("/docs/swagger-ui-bundle.js").expect(200);
  const init = await request(enabled.http).get("/docs/init.js").expect(200);
  t.regex(init.text, /\/openapi\.json/);
});

test("graceful shutdown lets an in-flight request finish, then refuses new connections", async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const stopped: string[] = [];
  const app = new SvcApp({ env, database: false, logger: silent, port: 0, handleSignals: false })
    .register({
      name: "slow",
      start(ctx) {
        ctx.resolve(HTTP_ROUTER).get("/slow", async (_req, res) => {
          entered();
          await gate;
          res.json({ data: "done" });
        });
      },
      stop: () => void stopped.push("slow"),
    });
  const running = await app.start();
  const inFlight = fetch(`${running.url}/slow`).then((response) => response.json());
  await inside;
  const stopping = app.stop();
  // Let the terminator begin closing, then finish the request it must wait for.
  setTimeout(release, 50);
  t.deepEqual(await inFlight, { data: "done" });
  await stopping;
  t.deepEqual(stopped, ["slow"]);
  await t.throwsAsync(() => fetch(`${running.url}/slow`));
});

/** A logger that keeps what it was given. */
function recordingLogger() {
  const lines: Array<{ level: string; message: string; meta?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

test("a failed start() logs one error line with the code and message, then rejects with the error", async (t) => {
  const { lines, logger } = recordingLogger();
  const app = new SvcApp({ env: { NODE_ENV: "test", SLOW_REQUEST_THRESHOLD_MS: "3s" }, database: false, logger, handleSignals: false, port: 0 });
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.start());
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  const errors = lines.filter((line) => line.level === "error");
  t.is(errors.length, 1);
  t.is(errors[0]!.message, `Start-up failed: ${error!.message}`);
  t.deepEqual(errors[0]!.meta, { code: ConfigErrors.INVALID_ENVIRONMENT.code }, "no stack for a coded error");
});

test("a plugin's uncoded start failure is logged with its stack", async (t) => {
  const { lines, logger } = recordingLogger();
  const app = new SvcApp({ env, database: false, logger, handleSignals: false, port: 0 }).register({
    name: "flaky",
    start() {
      throw new TypeError("cannot read the weather");
    },
  });
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.start());
  t.true(hasErrorCode(error, KernelErrors.PHASE_FAILED));
  const errors = lines.filter((line) => line.level === "error");
  t.is(errors.length, 1);
  t.is(errors[0]!.meta?.code, KernelErrors.PHASE_FAILED.code);
  t.regex(String(errors[0]!.meta?.stack), /^TypeError: cannot read the weather\n\s+at /);
});

test("a malformed PORT fails new SvcApp() with one error line too", (t) => {
  const { lines, logger } = recordingLogger();
  const error = t.throws(() => new SvcApp({ env: { NODE_ENV: "test", PORT: "http" }, database: false, logger }));
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.deepEqual(lines, [{ level: "error", message: `Start-up failed: ${error!.message}`, meta: { code: ConfigErrors.INVALID_ENVIRONMENT.code } }]);
});

test("build() failures are not logged: tests that expect them see only the rejection", async (t) => {
  const { lines, logger } = recordingLogger();
  const app = new SvcApp({ env: { NODE_ENV: "test", SLOW_REQUEST_THRESHOLD_MS: "3s" }, database: false, logger });
  t.teardown(() => app.stop());
  await t.throwsAsync(app.build());
  t.deepEqual(lines.filter((line) => line.level === "error"), []);
});

test("resolve() hands out what the built app binds, an override included, and refuses before build", async (t) => {
  const GREETER = token<{ greet(name: string): string }>("test.Greeter");
  const greeterPlugin: SvcPlugin = {
    name: "greeter",
    register(ctx) {
      ctx.container.bind(GREETER, { useValue: { greet: (name) => `Hello ${name}` } });
    },
  };
  const app = new SvcApp({ env, database: false, logger: silent }).register(greeterPlugin);
  t.true(hasErrorCode(t.throws(() => app.resolve(GREETER)), HostErrors.NOT_BUILT));
  await app.build();
  t.is(app.resolve(GREETER).greet("Ada"), "Hello Ada");

  const swapped = new SvcApp({ env, database: false, logger: silent }).register(greeterPlugin).override(GREETER, { useValue: { greet: () => "swapped" } });
  await swapped.build();
  t.is(swapped.resolve(GREETER).greet("Ada"), "swapped");
});
