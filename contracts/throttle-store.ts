import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { token } from "../kernel/container.js";

/** One budget a throttle asks its store for: `points` requests per `duration` seconds, per key. */
export interface ThrottleBudget {
  /** Names the budget in the store (`svc-throttle:model:todos:create:user`), so budgets never share counters. */
  readonly keyPrefix: string;
  readonly points: number;
  /** The window, in seconds. */
  readonly duration: number;
  /** Seconds a key stays refused once over budget (the login limits use it); none when absent. */
  readonly blockDuration?: number;
}

/**
 * Where throttles and the auth plugin's login limits count: a factory of rate-limiter-flexible
 * limiters, one per budget. Unbound, svc counts in memory, per process; with `CACHE_URL` set it
 * is bound to Redis. Bind a shared store yourself when several instances serve the same clients
 * without Redis, so a client's budget is one budget whichever instance answers.
 *
 * @example
 * import { RateLimiterRedis } from "rate-limiter-flexible";
 * app.override(THROTTLE_STORE, { useValue: (budget) => new RateLimiterRedis({ storeClient: redis, ...budget }) });
 */
export type ThrottleStore = (budget: ThrottleBudget) => RateLimiterAbstract;

export const THROTTLE_STORE = token<ThrottleStore>("http.ThrottleStore");
