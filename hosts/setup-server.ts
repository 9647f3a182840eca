import express, { type RequestHandler, type Router } from "express";
import type { SvcPlugin } from "../kernel/plugin.js";
import { MOUNT_AT } from "../contracts/http.js";
import { authPlugin, type AuthPluginOptions } from "../plugins/auth/auth-plugin.js";
import { isPathless, routerPlugin, SvcApp, type RunningApp, type SvcAppOptions } from "./svc-app.js";

/**
 * Options of the legacy builder. `addRoutes(router, options)` receives an express Router; model
 * routers created with the legacy `modelRouter(Model, options)` are mounted on it with
 * `router.use(path, modelRouter(...))` and become plugins of the app like any other.
 */
export interface SetupServerOptions extends SvcAppOptions {
  addRoutes: (router: Router, options: SetupServerOptions) => void;
  /** Plugins to register before the routes (auth, feature flags, ...). */
  plugins?: readonly SvcPlugin[];
  /** Middleware, as `SvcApp.addMiddleware`. */
  middleware?: readonly RequestHandler[];
  /** Build without listening (for tests with supertest). */
  skipListen?: boolean;
  /** The user model: given, the auth plugin is registered (JWT, or session auth per `AUTH_PROVIDER`). */
  userModel?: AuthPluginOptions["userModel"];
  /** Access-token claims for a user (SPEC §2.5). */
  generateJWTPayload?: AuthPluginOptions["generateJWTPayload"];
  /** GitHub sign-in (SPEC §5.2). */
  githubAuth?: AuthPluginOptions["githubAuth"];
  /** Session-based auth settings (SPEC §5.3). */
  sessionAuth?: AuthPluginOptions["sessionAuth"];
  /** Further auth plugin options (`profileFields`, `rateLimits`, ...). */
  auth?: Omit<AuthPluginOptions, "userModel">;
}

/** What `setupServer` returns: the app and, unless `skipListen`, the listening server. */
export interface LegacyServer {
  readonly app: import("express").Express;
  readonly svcApp: SvcApp;
  readonly running?: RunningApp;
  stop(): Promise<void>;
}

/**
 * The legacy builder, kept for existing apps: builds exactly the stack `SvcApp` builds (the
 * `SOCKET_SERVER` port and its handshake authentication included: `sockets` options apply).
 * New code should use `SvcApp`.
 *
 * @deprecated Use `SvcApp`.
 * @example
 * const { app } = await setupServer({
 *   skipListen: true,
 *   addRoutes(router) {
 *     router.use("/todos", modelRouter(Todo, { permissions: { list: [Permissions.IsAny] } }));
 *   },
 * });
 */
export async function setupServer(options: SetupServerOptions): Promise<LegacyServer> {
  const svcApp = new SvcApp(options);
  if (options.userModel) {
    svcApp.register(
      authPlugin({
        ...options.auth,
        userModel: options.userModel,
        generateJWTPayload: options.generateJWTPayload ?? options.auth?.generateJWTPayload,
        githubAuth: options.githubAuth ?? options.auth?.githubAuth,
        sessionAuth: options.sessionAuth ?? options.auth?.sessionAuth,
      }),
    );
  }
  for (const plugin of options.plugins ?? []) svcApp.register(plugin);
  for (const handler of options.middleware ?? []) svcApp.addMiddleware(handler);

  const legacyRouter = express.Router();
  options.addRoutes(legacyRoutesFacade(legacyRouter, svcApp), options);
  svcApp.register(routerPlugin("legacy-routes", "/", legacyRouter));

  const app = await svcApp.build();
  const running = options.skipListen ? undefined : await svcApp.start();
  return { app, svcApp, running, stop: () => svcApp.stop() };
}

/**
 * The router handed to `addRoutes`: a real express Router, except that `use(path, pathless)`
 * with a legacy model router registers that router as a plugin at `path` (so it gets the same
 * lifecycle and OpenAPI documentation as under `SvcApp`).
 */
function legacyRoutesFacade(router: Router, svcApp: SvcApp): Router {
  const use = router.use.bind(router);
  const facade = Object.create(router) as Router;
  facade.use = ((...args: unknown[]) => {
    const [path, ...handlers] = args;
    if (typeof path === "string" && handlers.some(isPathless)) {
      for (const handler of handlers) {
        if (isPathless(handler)) svcApp.register(handler[MOUNT_AT](path));
        else use(path, handler as RequestHandler);
      }
      return facade;
    }
    (use as (...a: unknown[]) => unknown)(...args);
    return facade;
  }) as Router["use"];
  return facade;
}
