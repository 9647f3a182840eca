import { createAdapter } from "@socket.io/redis-streams-adapter";
import { createClient } from "redis";
import { REDIS_CLIENT, type RedisClient } from "../../contracts/redis.js";
import { SOCKET_ADAPTER } from "../../contracts/socket-server.js";
import { THROTTLE_STORE } from "../../contracts/throttle-store.js";
import { atMostEvery } from "../../kernel/at-most-every.js";
import { makeValidator, readEnvironment } from "../../kernel/environment.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { RedisErrors } from "./errors.js";
import { redisThrottleStore } from "./redis-throttle-store.js";

/** Attempts at the first connection before the start fails (a server that is down fails in well under a second). */
const FIRST_CONNECT_ATTEMPTS = 3;
const CONNECT_TIMEOUT_MS = 5_000;
// Once connected, a lost connection is retried for as long as it takes, backing off to 5 s.
const MAX_RECONNECT_DELAY_MS = 5_000;
/** How long the socket adapter's stream reads wait for a message (and so the most a stop waits for one). */
const SOCKET_READ_BLOCK_MS = 1_000;
// A Redis that is away reports every failed reconnect: one warning per minute is enough.
const WARN_EVERY_MS = 60_000;

const redisUrl = makeValidator<string>((input: string) => {
  const value = input.trim();
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error("must be a redis:// or rediss:// URL, e.g. redis://cache:6379");
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw new Error(`must be a redis:// or rediss:// URL, not ${parsed.protocol}//`);
  return value;
});

/**
 * Redis for apps that run as several instances: with `CACHE_URL` set (`redis://host:6379`,
 * `rediss://` for TLS), the app connects at start (failing the start if it cannot:
 * `REDIS_UNREACHABLE`) and binds `REDIS_CLIENT`; `THROTTLE_STORE` to Redis, so router throttles
 * and the auth plugin's login limits are one budget across instances; and `SOCKET_ADAPTER` to
 * socket.io's Redis streams adapter, so broadcasts reach the sockets of every instance. Unset,
 * it does nothing. Every app has it.
 *
 * @example
 * // CACHE_URL=redis://cache:6379 npm start
 * new SvcApp(); // the host adds redisPlugin(); nothing to register
 */
export function redisPlugin(): SvcPlugin {
  let client: RedisClient | undefined;
  let shown = "";
  return {
    name: "redis",
    register(ctx) {
      const { CACHE_URL } = readEnvironment(ctx.config.env, { CACHE_URL: redisUrl({ default: undefined }) });
      if (!CACHE_URL) return;
      shown = displayRedisUrl(CACHE_URL);
      let connected = false;
      client = createClient({
        url: CACHE_URL,
        socket: {
          connectTimeout: CONNECT_TIMEOUT_MS,
          // Returning the cause ends the first connect(), which then rejects with it.
          reconnectStrategy: (retries: number, cause: Error) =>
            connected ? Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) : retries >= FIRST_CONNECT_ATTEMPTS - 1 ? cause : 100,
        },
      });
      client.on("ready", () => (connected = true));
      // Before the first connection the start's own error says it all.
      const warn = atMostEvery(WARN_EVERY_MS, (error: Error) => ctx.logger.warn(`Redis at ${shown}: ${error.message} (reconnecting; throttles count in memory meanwhile)`));
      client.on("error", (error: Error) => connected && warn(error));
      ctx.container.bind(REDIS_CLIENT, { useValue: client });
      ctx.container.bind(THROTTLE_STORE, { useValue: redisThrottleStore(client) });
      // Made when the socket server is (after this plugin connected): its reading connections
      // are duplicates of this one. A short block keeps a stopping app from waiting on a read.
      const shared = client;
      ctx.container.bind(SOCKET_ADAPTER, { useFactory: () => createAdapter(shared, { blockTimeInMs: SOCKET_READ_BLOCK_MS }) });
    },
    async start(ctx) {
      if (!client) return;
      try {
        await client.connect();
      } catch (error) {
        throw RedisErrors.UNREACHABLE(shown, error instanceof Error ? error.message : String(error));
      }
      ctx.logger.info(`Redis connected: ${shown}`);
    },
    async stop() {
      if (!client?.isOpen) return;
      // Lets commands in flight finish; a connection that cannot close cleanly is dropped.
      await client.close().catch(() => client?.destroy());
    },
  };
}

/** The URL with its password masked, for logs and errors. */
function displayRedisUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "****";
  return parsed.toString();
}
