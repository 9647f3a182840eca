import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { token } from "../kernel/container.js";

/** One budget a throttle asks its store for: `points` requests per `duration` seconds, per key. */
export interface ThrottleBudget {
  /** Names the budget in the store (`svc-throttle:model:todos:create:user`), so budgets never share counters. */
  readonly keyPrefix: string;
  readonly points: number;
  /** The window, in seconds. */
  readonly duration: number;
}

/**
 * Where throttles count: a factory of rate-limiter-flexible limiters, one per budget. Unbound,
 * svc counts in memory, per process. Bind a shared store when several instances serve the same
 * clients, so a client's budget is one budget whichever instance answers.
 *
 * @example
 * import { RateLimiterRedis } from "rate-limiter-flexible";
 * app.override(THROTTLE_STORE, { useValue: (budget) => new RateLimiterRedis({ storeClient: redis, ...budget }) });
 */
export type ThrottleStore = (budget: ThrottleBudget) => RateLimiterAbstract;

export const THROTTLE_STORE = token<ThrottleStore>("http.ThrottleStore");
