import type { RequestHandler, Router } from "express";
import { token } from "../kernel/container.js";
import type { SvcPlugin } from "../kernel/plugin.js";

/**
 * The router plugins mount their routes on. The host places it after authentication and request
 * logging and before `/openapi.json`, the 404 handler and the error handler.
 *
 * @example
 * start(ctx) { ctx.resolve(HTTP_ROUTER).get("/health", (_req, res) => res.json({ data: { ok: true } })); }
 */
export const HTTP_ROUTER = token<Router>("http.Router");

/**
 * The authentication hook of the middleware stack. The auth plugin binds it to a middleware that
 * sets `req.user` (and rejects bad credentials with 401); without it, every request is anonymous.
 */
export const AUTHENTICATION_MIDDLEWARE = token<RequestHandler>("http.AuthenticationMiddleware");

/** The request-logging hook of the middleware stack, bound by the logging plugin. */
export const REQUEST_LOGGING_MIDDLEWARE = token<RequestHandler>("http.RequestLoggingMiddleware");

/**
 * A route that takes personal data the app keeps out of its logs (a provider's delivery webhook:
 * recipients' addresses) sets `res.locals[OMIT_BODY_FROM_LOG] = true`; the request line is still
 * written, without the body.
 *
 * @example
 * router.post("/webhooks/mail", (req, res, next) => { res.locals[OMIT_BODY_FROM_LOG] = true; next(); }, handle);
 */
export const OMIT_BODY_FROM_LOG = "svcOmitBodyFromLog";

/**
 * A route polled by machines (the health probes) sets `res.locals[QUIET_REQUEST_LOG] = true`: its
 * request line is logged at `debug` rather than `info` while it succeeds, so probes every few
 * seconds do not bury the app's traffic. A failure, or a slow answer, is logged as any other.
 *
 * @example
 * router.get("/healthz", (_req, res) => { res.locals[QUIET_REQUEST_LOG] = true; res.json({ data: { status: "ok" } }); });
 */
export const QUIET_REQUEST_LOG = "svcQuietRequestLog";

/**
 * Marks a router built without a path (the legacy `modelRouter(Model, options)`): calling
 * `[MOUNT_AT](path)` gives the plugin that serves it at `path`. `setupServer`'s `addRoutes`
 * facade calls it when such a router is passed to `router.use(path, ...)`.
 */
export const MOUNT_AT: unique symbol = Symbol.for("svc.mountAt");

export interface PathlessRouter {
  readonly name: string;
  [MOUNT_AT](path: string): SvcPlugin;
}
