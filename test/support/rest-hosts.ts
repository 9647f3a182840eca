import type { Express } from "express";
import request from "supertest";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { setupServer } from "../../hosts/setup-server.js";
import type { SvcApp } from "../../hosts/svc-app.js";
import { createTestApp, startTestDatabase } from "../../hosts/testing.js";
import { modelRouter } from "../../plugins/rest/model-router.js";
import type { ModelRouterOptions, RestModel } from "../../plugins/rest/model-router-options.js";

/** The two hosts every model-router behaviour is checked under. */
export type HostKind = "SvcApp" | "setupServer";
export const HOSTS: readonly HostKind[] = ["SvcApp", "setupServer"];

/** One model router to mount: `modelRouter(path, model, options)` or, legacy, `router.use(path, modelRouter(model, options))`. */
export interface RouterSpec<T> {
  path: string;
  model: RestModel<T>;
  options: ModelRouterOptions<T>;
}

export interface BuiltRestApp {
  http: Express;
  svcApp: SvcApp;
  stop(): Promise<void>;
}

/**
 * Builds a test app on the test database serving `routers`, under either host: `SvcApp` with
 * `modelRouter(path, ...)`, or the legacy `setupServer` with `router.use(path, modelRouter(Model, ...))`
 * inside `addRoutes`. `plugins` (e.g. `tokens.plugin()`) are registered first.
 *
 * @example
 * const app = await buildRestApp("setupServer", [{ path: "/todos", model: Todo, options }], [tokens.plugin()]);
 * t.teardown(() => app.stop());
 */
export async function buildRestApp(
  host: HostKind,
  // Each spec keeps its own model type; the list itself is heterogeneous.
  routers: ReadonlyArray<RouterSpec<never>>,
  plugins: readonly SvcPlugin[] = [],
): Promise<BuiltRestApp> {
  if (host === "SvcApp") {
    const app = await createTestApp();
    for (const plugin of plugins) app.register(plugin);
    for (const spec of routers) app.register(modelRouter(spec.path, spec.model, spec.options));
    const http = await app.build();
    return { http, svcApp: app, stop: () => app.stop() };
  }
  const database = await startTestDatabase();
  const server = await setupServer({
    env: { NODE_ENV: "test" },
    handleSignals: false,
    skipListen: true,
    database: { uri: database.uri, dbName: database.dbName },
    plugins,
    addRoutes(router) {
      for (const spec of routers) router.use(spec.path, modelRouter(spec.model, spec.options));
    },
  });
  return { http: server.app, svcApp: server.svcApp, stop: () => server.stop() };
}

/** Erases a spec's model type so specs of different models fit one list. */
export function spec<T>(path: string, model: RestModel<T>, options: ModelRouterOptions<NoInfer<T>>): RouterSpec<never> {
  return { path, model, options } as unknown as RouterSpec<never>;
}

/** A supertest client acting as one caller (anonymous when `auth` is undefined). */
export interface Caller {
  get(path: string): import("supertest").Test;
  post(path: string, body?: object | string): import("supertest").Test;
  patch(path: string, body?: object | string): import("supertest").Test;
  put(path: string, body?: object): import("supertest").Test;
  delete(path: string): import("supertest").Test;
}

/**
 * Requests as a given caller.
 *
 * @example
 * await as(http, alice.auth).post("/todos", { title: "a" }).expect(201);
 */
export function as(http: Express, auth?: string): Caller {
  const sign = (test: import("supertest").Test) => (auth ? test.set("Authorization", auth) : test);
  return {
    get: (path) => sign(request(http).get(path)),
    post: (path, body) => sign(request(http).post(path)).send(body ?? {}),
    patch: (path, body) => sign(request(http).patch(path)).send(body ?? {}),
    put: (path, body) => sign(request(http).put(path)).send(body ?? {}),
    delete: (path) => sign(request(http).delete(path)),
  };
}
