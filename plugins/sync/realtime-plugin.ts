import type { Db } from "mongodb";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { AUTHENTICATOR, type Authenticator } from "../../contracts/authenticator.js";
import { MODEL_REGISTRY } from "../../contracts/model-registry.js";
import { SOCKET_SERVER, type SvcSocket } from "../../contracts/socket-server.js";
import type { PluginContext, SvcPlugin } from "../../kernel/plugin.js";
import { DeltaFeed } from "./delta-feed.js";
import { SyncErrors } from "./errors.js";
import { deltaOf, roomOf } from "./sync-delta.js";
import { socketCheckTrouble } from "./check-trouble.js";
import { SyncSocketSession } from "./sync-socket.js";
import { SYNC_SERVICES } from "./sync-tokens.js";

export interface RealtimeAppOptions {
  /** Collection subscriptions per socket (default 50, SPEC §8). */
  maxSubscriptions?: number;
  /** Mutations per second per socket; each batch entry counts (default 100, SPEC §8). */
  mutationsPerSecond?: number;
  /** The largest `sync:mutate` or `sync:mutateBatch` payload, in bytes (default 1 MiB, the HTTP body limit). */
  maxPayloadBytes?: number;
  /**
   * How often each socket's credential and stream memberships are checked again, in ms (default
   * 60 000). Expiry is also checked at the credential's own expiry time, and before mutations (see `authFreshnessMs`).
   */
  authCheckIntervalMs?: number;
  /**
   * Mutations arriving within this many ms of a successful credential check reuse it (default
   * 1000; 0 checks before every mutation, as HTTP does per request). A burst from one device then
   * costs one check, and a user disabled meanwhile is refused at most this long after.
   */
  authFreshnessMs?: number;
  /** First delay before reopening a failed change stream, in ms; doubles up to 30 s (default 250). */
  retryDelayMs?: number;
}

/**
 * The realtime half of sync (`RealtimeApp` of SPEC §4.6 and §6.1) on the app's socket server
 * (`SOCKET_SERVER`: the app's port, or `WEBSOCKET_PORT`): signed-in sockets subscribe to
 * collections and get `sync:delta` for every committed write of their streams, pushed from one
 * database change stream (it resumes from its token after errors, and tells clients to
 * reconcile when it cannot); `sync:mutate` and `sync:mutateBatch` go through the same mutation
 * path as `POST /sync/mutate`, answered with `sync:ack` / `sync:nack`; a credential that expires,
 * or a user disabled meanwhile, gets `sync:auth-expired`. Sockets authenticate as HTTP requests
 * do, through the auth plugin's `AUTHENTICATOR` (JWT, or sessions with `AUTH_PROVIDER=session-auth`).
 *
 * @example
 * new SvcApp()
 *   .register(authPlugin({ userModel: User }))
 *   .register(modelRouter("/todos", Todo, { permissions, sync: { scope: { type: "owner" } } }))
 *   .register(syncApp())
 *   .register(realtimeApp());
 */
export function realtimeApp(options: RealtimeAppOptions = {}): SvcPlugin {
  let feed: DeltaFeed | undefined;
  let detach: (() => void) | undefined;
  const sessions = new Set<SyncSocketSession>();

  return {
    name: "sync-realtime",
    dependsOn: ["sync"],
    async start(ctx: PluginContext) {
      if (!ctx.container.isBound(AUTHENTICATOR)) throw SyncErrors.REALTIME_NEEDS_AUTH();
      // Resolved at each use, as the host's handshake does: the auth plugin may start after this one.
      const authenticator: Authenticator = {
        authenticateToken: (token) => ctx.resolve(AUTHENTICATOR).authenticateToken(token),
        expiresAt: async (token) => ctx.resolve(AUTHENTICATOR).expiresAt?.(token),
      };
      // Without a synced model the sync plugin starts (and warns) with no services to resolve.
      if (!ctx.resolve(MODEL_REGISTRY).list().some((registration) => registration.sync)) {
        ctx.logger.warn("realtimeApp() has no collection to push: give a modelRouter the sync option");
        return;
      }
      const services = ctx.resolve(SYNC_SERVICES);
      const io = ctx.resolve(SOCKET_SERVER);
      const first = [...services.collections.values()][0];
      if (!first) return;
      const connection = first.model.db;
      const tombstones = services.bookkeeping.tombstones.collection.collectionName;
      const watched = [...services.collections.keys(), tombstones];
      await keepPostImages(connection.db!, watched);

      const limiter = new RateLimiterMemory({ keyPrefix: "svc-sync-mutations", points: options.mutationsPerSecond ?? 100, duration: 1 });
      const limits = {
        maxSubscriptions: options.maxSubscriptions ?? 50,
        maxPayloadBytes: options.maxPayloadBytes ?? 1024 * 1024,
        authCheckIntervalMs: options.authCheckIntervalMs ?? 60_000,
        authFreshnessMs: options.authFreshnessMs ?? 1000,
      };
      feed = new DeltaFeed({
        db: connection.db!,
        collections: watched,
        logger: ctx.logger,
        retryDelayMs: options.retryDelayMs,
        keepPostImages: () => keepPostImages(connection.db!, watched),
        onChange: (change) => {
          const delta = deltaOf(change, tombstones);
          // Every instance follows the change stream: each tells only its own sockets.
          if (delta) io.local.to(roomOf(delta.stream)).emit("sync:delta", delta);
        },
        onGap: (reason) => {
          ctx.logger.warn("Sync: the change stream could not resume; telling subscribed clients to reconcile", { reason });
          for (const session of sessions) session.reconcile(reason);
        },
      });
      await feed.start();

      const trouble = socketCheckTrouble(ctx.logger);
      const admit = (socket: SvcSocket) => {
        const session = new SyncSocketSession(socket, { services, authenticator, limiter, limits, logger: ctx.logger, trouble });
        sessions.add(session);
        socket.once("disconnect", () => sessions.delete(session));
        session.attach();
      };
      io.on("connection", admit);
      // Sockets that connected before this plugin started are served too.
      for (const socket of io.of("/").sockets.values()) admit(socket);
      detach = () => io.off("connection", admit);
    },
    async stop() {
      detach?.();
      detach = undefined;
      for (const session of sessions) session.dispose();
      sessions.clear();
      await feed?.stop();
      feed = undefined;
    },
  };
}

/**
 * Asks the database to keep post-images of the watched collections (MongoDB 6.0+), so each
 * change event carries the document as that write left it. Refused → the app does not start.
 */
async function keepPostImages(db: Db, collections: readonly string[]): Promise<void> {
  for (const name of collections) {
    await db.createCollection(name).catch(() => undefined);
    try {
      await db.command({ collMod: name, changeStreamPreAndPostImages: { enabled: true } });
    } catch (error) {
      throw SyncErrors.POST_IMAGES_UNAVAILABLE(name, error instanceof Error ? error.message : String(error));
    }
  }
}
