import test from "ava";
import express, { type Router } from "express";
import request from "supertest";
import { HTTP_ROUTER, MOUNT_AT, type PathlessRouter } from "../contracts/http.js";
import type { SvcPlugin } from "../kernel/plugin.js";
import { stackLayerNames } from "./http-stack.js";
import { setupServer } from "./setup-server.js";
import { SvcApp } from "./svc-app.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const env = { NODE_ENV: "test" };

/** A plugin that contributes a route and an OpenAPI operation. */
const greeter = (): SvcPlugin => ({
  name: "greeter",
  start(ctx) {
    ctx.resolve(HTTP_ROUTER).get("/hello", (req, res) => res.json({ data: `hello ${req.query.name ?? "you"}` }));
    ctx.openapi.addOperation("get", "/hello", { summary: "Greet", responses: { 200: { description: "OK" } } });
  },
});

/** Routes written the legacy way. */
function addLegacyRoutes(router: Router) {
  router.get("/items", (_req, res) => res.json({ data: [1, 2, 3] }));
  router.post("/items", (req, res) => res.status(201).json({ data: req.body }));
}

/** A stand-in for the legacy, path-less model router: mounting it yields a plugin. */
function pathlessCounter(): PathlessRouter {
  return {
    name: "counter",
    [MOUNT_AT]: (path: string): SvcPlugin => ({
      name: `counter:${path.replace(/\W/g, "")}`,
      start(ctx) {
        ctx.resolve(HTTP_ROUTER).get(`${path}/count`, (_req, res) => res.json({ data: 42 }));
        ctx.openapi.addOperation("get", `${path}/count`, { responses: { 200: { description: "OK" } } });
      },
    }),
  };
}

async function viaSvcApp() {
  const legacy = express.Router();
  addLegacyRoutes(legacy);
  const app = new SvcApp({ env, database: false, logger: silent })
    .register(greeter())
    .register(legacy)
    .register(pathlessCounter()[MOUNT_AT]("/counter"));
  return { http: await app.build(), stop: () => app.stop() };
}

async function viaSetupServer() {
  const server = await setupServer({
    env,
    database: false,
    logger: silent,
    skipListen: true,
    plugins: [greeter()],
    addRoutes(router) {
      addLegacyRoutes(router);
      router.use("/counter", pathlessCounter() as never);
    },
  });
  return { http: server.app, stop: () => server.stop() };
}

const probes: Array<{ method: "get" | "post"; path: string; body?: object }> = [
  { method: "get", path: "/hello?name=ada" },
  { method: "get", path: "/items" },
  { method: "post", path: "/items", body: { a: 1 } },
  { method: "get", path: "/counter/count" },
  { method: "get", path: "/missing" },
  { method: "post", path: "/items", body: undefined },
];

test("SvcApp and setupServer build the same stack and answer identically", async (t) => {
  const modern = await viaSvcApp();
  const legacy = await viaSetupServer();
  t.teardown(() => Promise.all([modern.stop(), legacy.stop()]).then(() => undefined));

  t.deepEqual(stackLayerNames(legacy.http), stackLayerNames(modern.http));

  for (const probe of probes) {
    const send = async (http: typeof modern.http) => {
      let call = request(http)[probe.method](probe.path).set("X-Request-ID", "parity");
      if (probe.body) call = call.send(probe.body);
      const response = await call;
      return { status: response.status, body: response.body, type: response.type };
    };
    t.deepEqual(await send(legacy.http), await send(modern.http), `${probe.method} ${probe.path}`);
  }

  const [a, b] = await Promise.all([
    request(modern.http).get("/openapi.json"),
    request(legacy.http).get("/openapi.json"),
  ]);
  t.deepEqual(Object.keys(b.body.paths).sort(), Object.keys(a.body.paths).sort());
  t.truthy(b.body.paths["/counter/count"]);
});

test("setupServer listens unless skipListen, and stops cleanly", async (t) => {
  const server = await setupServer({
    env,
    database: false,
    logger: silent,
    port: 0,
    handleSignals: false,
    addRoutes: addLegacyRoutes,
  });
  t.teardown(() => server.stop());
  t.truthy(server.running);
  const response = await fetch(`${server.running!.url}/items`);
  t.deepEqual(await response.json(), { data: [1, 2, 3] });
});
