import { defineErrors } from "../../kernel/errors.js";

/**
 * Start-up failures of the Redis connection (`CACHE_URL`).
 *
 * @example
 * throw RedisErrors.UNREACHABLE("redis://cache:6379", "connect ECONNREFUSED 10.0.0.7:6379");
 */
export const RedisErrors = defineErrors("REDIS", {
  UNREACHABLE: {
    message: (url: string, reason: string) => `CACHE_URL: cannot connect to Redis at ${url}: ${reason}`,
  },
});
