import type { BetterAuthRateLimitStorage } from "better-auth";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { ThrottleStore } from "../../../contracts/throttle-store.js";
import { atMostEvery } from "../../../kernel/at-most-every.js";
import type { SvcLogger } from "../../../kernel/logger.js";

/**
 * better-auth's general request limit (every session-auth route but sign-in and sign-up, which
 * the login limiter counts) kept in the app's `THROTTLE_STORE`, one limiter per rule: with
 * `CACHE_URL` it is one budget across instances, like every other svc limit. A store that fails
 * lets the request through (a warning at most once a minute), as throttles do.
 *
 * @example
 * betterAuth({ rateLimit: { enabled: true, window: 60, max: 100, customStorage: requestLimitStorage(store, logger) } });
 */
export function requestLimitStorage(store: ThrottleStore, logger: SvcLogger): BetterAuthRateLimitStorage {
  const limiters = new Map<string, RateLimiterAbstract>();
  // A store that is away fails every request: one warning a minute says so.
  const warn = atMostEvery(60_000, (error: unknown) =>
    logger.warn(`Session auth's request limit could not count (requests go through): ${error instanceof Error ? error.message : String(error)}`),
  );
  const limiterFor = (rule: { window: number; max: number }) => {
    const id = `${rule.max}-per-${rule.window}s`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = store({ keyPrefix: `svc-auth:session-requests:${id}`, points: rule.max, duration: rule.window });
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return {
    async consume(key, rule) {
      try {
        await limiterFor(rule).consume(key);
        return { allowed: true, retryAfter: null };
      } catch (error) {
        if (error instanceof RateLimiterRes) return { allowed: false, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
        warn(error);
        return { allowed: true, retryAfter: null };
      }
    },
  };
}
