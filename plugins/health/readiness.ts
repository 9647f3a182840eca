import { REDIS_CLIENT } from "../../contracts/redis.js";
import { DATABASE } from "../../contracts/database.js";
import type { SvcContainer } from "../../kernel/container.js";
import { withTimeout } from "../../kernel/with-timeout.js";

/** What one dependency answered: `ok`, or `failed` (the reason goes to the log, never to the prober). */
export type CheckResult = "ok" | "failed";

/** How long a dependency may take to answer a probe's ping before it counts as failed. */
export const CHECK_TIMEOUT_MS = 2_000;

/**
 * Pings what the app depends on, in parallel: the database (when the app has one) and Redis
 * (with `CACHE_URL`). Each answers within `CHECK_TIMEOUT_MS` or counts as failed.
 *
 * @example
 * const { checks, failures } = await checkReadiness(ctx.container);
 * // checks: { database: "ok", redis: "failed" }; failures: { redis: "The client is closed" }
 */
export async function checkReadiness(container: SvcContainer): Promise<{ checks: Record<string, CheckResult>; failures: Record<string, string> }> {
  const probes: Record<string, () => Promise<unknown>> = {};
  const database = container.tryResolve(DATABASE);
  if (database) {
    probes.database = async () => {
      const db = database.connection.db;
      if (database.connection.readyState !== 1 || !db) throw new Error("not connected");
      return db.command({ ping: 1 });
    };
  }
  const redis = container.tryResolve(REDIS_CLIENT);
  if (redis) probes.redis = () => (redis.isReady ? redis.ping() : Promise.reject(new Error("not connected")));

  const checks: Record<string, CheckResult> = {};
  const failures: Record<string, string> = {};
  await Promise.all(
    Object.entries(probes).map(async ([name, probe]) => {
      try {
        await withTimeout(probe(), CHECK_TIMEOUT_MS, () => new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`));
        checks[name] = "ok";
      } catch (error) {
        checks[name] = "failed";
        failures[name] = error instanceof Error ? error.message : String(error);
      }
    }),
  );
  return { checks, failures };
}
