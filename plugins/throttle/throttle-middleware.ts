import type { RequestHandler } from "express";
import type { PluginContext } from "../../kernel/plugin.js";
import type { ThrottleRate } from "./rate.js";
import { Throttle } from "./throttle.js";
import { throttleStoreOf } from "./throttle-store.js";

/**
 * Throttles a hand-written route as `modelRouter`'s `throttle` option does generated ones: each
 * signed-in user (by id) and each anonymous client (by IP) gets `rate` requests per period,
 * counted in the app's `THROTTLE_STORE`; over it, 429 `HTTP_RATE_LIMITED` with `Retry-After`.
 * Put it after authentication (the host's, which runs before every route) so users count by id.
 * `scope` names the budget: routes given the same scope share one.
 *
 * @example
 * start(ctx) {
 *   ctx.resolve(HTTP_ROUTER).post("/reports", throttle(ctx, "reports", { user: "10/minute", anonymous: "2/minute" }), sendReport);
 * }
 */
export function throttle(ctx: Pick<PluginContext, "container" | "logger">, scope: string, rate: ThrottleRate): RequestHandler {
  const budget = new Throttle(scope, rate, throttleStoreOf(ctx.container), ctx.logger, `throttle "${scope}"`);
  return async function svcThrottle(req, _res, next) {
    await budget.consume({ user: req.user, ip: req.ip });
    next();
  };
}
