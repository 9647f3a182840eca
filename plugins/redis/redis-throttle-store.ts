import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import type { RedisClient } from "../../contracts/redis.js";
import type { ThrottleStore } from "../../contracts/throttle-store.js";

/**
 * Counts every budget in Redis, so all instances of the app spend one budget per caller. While
 * Redis is away, each budget falls back to counting in this process's memory (rate-limiter-
 * flexible's insurance limiter) rather than failing or waiting for the reconnect: requests are
 * still bounded, per instance, and never hang on a command queued for a server that is down.
 *
 * @example
 * app.override(THROTTLE_STORE, { useValue: redisThrottleStore(client) });
 */
export function redisThrottleStore(client: RedisClient): ThrottleStore {
  return (budget) =>
    new RateLimiterRedis({
      storeClient: client,
      useRedisPackage: true,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(budget),
      ...budget,
    });
}
