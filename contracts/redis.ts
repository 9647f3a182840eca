import type { createClient } from "redis";
import { token } from "../kernel/container.js";

/** A node-redis client (the `redis` package's `createClient()`). */
export type RedisClient = ReturnType<typeof createClient>;

/**
 * The app's Redis connection, bound when `CACHE_URL` is set: connected before any other plugin
 * starts, closed after every other plugin stopped. svc counts its throttles and login limits in
 * it (so every instance of the app spends one budget) and relays socket.io broadcasts through
 * it; plugins and app code may use it too.
 *
 * @example
 * const redis = ctx.container.tryResolve(REDIS_CLIENT);
 * await redis?.set(`report:${id}`, JSON.stringify(report), { EX: 3600 });
 */
export const REDIS_CLIENT = token<RedisClient>("redis.Client");
