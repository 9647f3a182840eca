import { requeueFailed, resolveConflictIn, type ConflictStrategy } from "./conflict-resolution.js";
import { createDebugLog, type SyncDebugLog } from "./debug-log.js";
import { unref, type AuthPauseReason, type EngineContext } from "./engine-context.js";
import { SyncClientErrors } from "./errors.js";
import { createHttpChannel } from "./http-channel.js";
import { createIndexedDbPersister, hasIndexedDb } from "./indexeddb-persister.js";
import { LocalDatabase } from "./local-database.js";
import { generateMutationId } from "./mutation-id.js";
import { OutboxSender } from "./outbox-sender.js";
import { createMemoryPersister, type SyncPersister, type SyncPersisterFactory } from "./persister.js";
import { sha256Hex } from "./record-cipher.js";
import { applySchemaVersion } from "./schema-migration.js";
import { purgeTombstones } from "./server-state.js";
import { createSocketTransport } from "./socket-transport.js";
import { SYNC_DB_DEFAULTS, type SyncDbOptions } from "./sync-db-options.js";
import { computeStatus, type EngineState, type SyncStatus } from "./sync-status.js";
import { TabCoordinator, type LeaderCall } from "./tab-coordinator.js";
import { outboxOf, storeOf, type SyncOutbox, type SyncStore } from "./sync-store.js";
import { StreamPager, type ForceResyncResult } from "./stream-pager.js";
import { SyncRequestError, type TransportEvent } from "./transport.js";
import type { MutationOperation, SyncDelta } from "./wire-types.js";

/** What `mutate()` takes: `id` is minted (a UUID) for a create without one; update and delete need it. */
export interface MutateInput {
  readonly collection: string;
  readonly operation: MutationOperation;
  readonly id?: string;
  /** The fields to create with, or to change (`null` empties a field); none for delete. */
  readonly data?: Readonly<Record<string, unknown>>;
  /**
   * How many sends may fail retryably (network, timeout, 5xx) before the mutation fails for good
   * (status `failed`, a `_conflicts` entry with code `error`, its entity blocked until
   * `retryFailed`). Omitted: retried with backoff until it goes through.
   */
  readonly maxAttempts?: number;
}

/**
 * A local-first database of the synced collections: reads from the local store, writes applied
 * locally at once and sent when it can, conflicts kept until the app decides.
 *
 * @example
 * await db.start();
 * const { id } = db.mutate({ collection: "todos", operation: "create", data: { title: "Milk" } });
 * db.store.get("todos", id); // { data: { id, title: "Milk" }, deleted: false, seq: 0, isPending: true }
 */
export interface SyncDb {
  /** Loads the local database of the signed-in user and starts syncing; resolves without waiting for the network. Idempotent. */
  start(): Promise<void>;
  /** Stops syncing (timers, socket); the store stays readable. */
  stop(): Promise<void>;
  /** Disconnects on purpose: replay, reconcile and timers pause; mutations keep queueing. */
  goOffline(): void;
  /** Reconnects after `goOffline()`: reconcile and outbox replay follow. */
  goOnline(): void;
  /** Applies a change locally at once and queues it for the server. */
  mutate(input: MutateInput): { mutationId: string; id: string };
  /**
   * Resolves once every change made so far is stored by the persister (at once when none is
   * waiting). `mutate()` returns before its outbox row is stored — encryption and IndexedDB are
   * asynchronous, and writes are stored in order behind any write in progress — so a reload or
   * navigation in that window would lose the change: await this first. Never rejects: a failed
   * write shows as `persistence: "error"` in the status.
   *
   * @example
   * db.mutate({ collection: "todos", operation: "create", data: { title: "Milk" } });
   * await db.whenPersisted();
   * location.assign("/done");
   */
  whenPersisted(): Promise<void>;
  /** Pages every stream the user is in from its cursor. */
  reconcile(): Promise<void>;
  /** Pages every stream from 0 and makes the local copy equal to the server's (pending changes stay). */
  forceResync(): Promise<ForceResyncResult>;
  /** Sends the outbox now (skipping any backoff wait); resolves when nothing more can be sent. */
  replayOutbox(): Promise<void>;
  /** Settles a conflict or failed mutation: `useServer` takes the server's entity, `keepMine` sends the change again on top of it. */
  resolveConflict(input: { readonly mutationId: string; readonly strategy: ConflictStrategy }): Promise<void>;
  /** Queues the failed mutations of an entity again (and so unblocks its later ones); resolves with how many. */
  retryFailed(input: { readonly entityId: string }): Promise<number>;
  /** Stops, forgets the user's data in memory, and wipes the stored copy when `wipeOnSignOut`. */
  signOut(): Promise<void>;
  getSyncStatus(): SyncStatus;
  /** Calls `listener` with every new status; returns an unsubscribe function. */
  onStatusChange(listener: (status: SyncStatus) => void): () => void;
  readonly store: SyncStore;
  readonly outbox: SyncOutbox;
  readonly debug: SyncDebugLog;
}

/** What `wipeLocalData` needs of a client (kept off the public interface). */
const wipers = new WeakMap<SyncDb, () => Promise<void>>();

/**
 * Creates a sync client (SPEC §2.8). Nothing happens until `start()`.
 *
 * @example
 * import { createSyncDb } from "svc/sync/client";
 * const db = createSyncDb({
 *   name: "todo-app",
 *   collections: ["todos"],
 *   baseUrl: "https://api.example.com",
 *   authProvider: { getToken: () => token, getUserId: () => userId, onAuthChange: () => () => {} },
 * });
 * await db.start();
 */
export function createSyncDb(options: SyncDbOptions): SyncDb {
  if (!options.name) throw SyncClientErrors.INVALID_OPTIONS("name is required");
  if (!options.collections?.length) throw SyncClientErrors.INVALID_OPTIONS("collections must name at least one collection");
  if (!options.authProvider) throw SyncClientErrors.INVALID_OPTIONS("authProvider is required");
  if (!options.baseUrl && !(options.transport && options.httpChannel)) throw SyncClientErrors.INVALID_OPTIONS("baseUrl is required unless both transport and httpChannel are given");
  const settings = { ...SYNC_DB_DEFAULTS, ...definedOf(options) };
  // The server refuses a larger page: sync would stop at the first snapshot with a healthy status.
  if (!Number.isInteger(settings.snapshotPageSize) || settings.snapshotPageSize < 1 || settings.snapshotPageSize > 1000) {
    throw SyncClientErrors.INVALID_OPTIONS(`snapshotPageSize must be a whole number from 1 to 1000 (the server's page limit), not ${String(settings.snapshotPageSize)}`);
  }
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const mintId = () => generateMutationId(options.random);
  const collections = [...options.collections];
  const database = new LocalDatabase();
  const debug = createDebugLog(options.debug, now);
  const transport = options.transport ?? createSocketTransport({ url: options.baseUrl! });
  const http = options.httpChannel ?? createHttpChannel({ baseUrl: options.baseUrl! });
  const persisterFactory = options.persisterFactory ?? defaultPersisterFactory(options);
  const openPersister = (id: string) => persisterFactory({ name: options.name, userId: id, httpChannel: http, getToken: async () => (await options.authProvider.getToken()) ?? null });

  let startPromise: Promise<void> | undefined;
  let started = false;
  let userId: string | undefined;
  let persister: SyncPersister | undefined;
  let persistence: SyncStatus["persistence"] = "memory";
  let persisting: Promise<void> = Promise.resolve();
  let offline = false;
  let paused: "auth" | undefined;
  let refreshesWithoutProgress = 0;
  let reconcileTimer: ReturnType<typeof setInterval> | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  // Subscriptions the server could not answer for now (SYNC_UNAVAILABLE), asked again after a growing delay.
  let resubscribeTimer: ReturnType<typeof setTimeout> | undefined;
  const unavailable = new Set<string>();
  let resubscribeAttempts = 0;
  let stopAuth: (() => void) | undefined;
  let stopTransport: (() => void) | undefined;
  let status: SyncStatus | undefined;
  let statusDirty = true;
  let statusScheduled = false;
  let notified: SyncStatus | undefined;
  /** This instance runs the engine: always without tab coordination, else while it holds the lock. */
  let leading = false;
  let booted = false;
  let heardOtherTab = false;
  let tabs: TabCoordinator | undefined;
  let leaderEngine: EngineState | undefined;
  let lastEngineBroadcast = "";
  let engineStarting: Promise<void> | undefined;
  const statusListeners = new Set<(status: SyncStatus) => void>();

  const context: EngineContext = {
    database,
    collections,
    settings,
    transport,
    http,
    debug,
    now,
    random,
    async token() {
      const token = await options.authProvider.getToken();
      if (token) return token;
      pauseAuth("unauthorized");
      throw new SyncRequestError("auth", "authProvider.getToken() returned no token");
    },
    active: () => started && leading && !offline && !paused,
    pauseAuth,
    changed: publishStatus,
  };
  const pager = new StreamPager(context);
  const sender = new OutboxSender(context);

  function engineState(): EngineState {
    return {
      isOnline: transport.isConnected() && !offline,
      isSyncing: pager.busy || sender.draining,
      ...(paused ? { paused } : {}),
      draining: sender.draining,
      sentThisDrain: sender.sentThisDrain,
      totalThisDrain: sender.totalThisDrain,
      persistence,
    };
  }

  /**
   * Marks the status stale. It is computed when read (`getSyncStatus`) and once per microtask for
   * listeners, so a burst of changes (10,000 deltas) costs one status, not one each.
   */
  function publishStatus(): void {
    statusDirty = true;
    if (statusScheduled) return;
    statusScheduled = true;
    queueMicrotask(flushStatus);
  }

  function currentStatus(): SyncStatus {
    if (status && !statusDirty) return status;
    statusDirty = false;
    const own = engineState();
    // A follower tab shows the leader's connection and draining (its own persistence).
    const engine = tabs && !leading ? { ...(leaderEngine ?? { ...own, isOnline: false }), persistence } : own;
    if (tabs && leading) {
      const serialized = JSON.stringify(own);
      if (serialized !== lastEngineBroadcast) {
        lastEngineBroadcast = serialized;
        tabs.broadcastEngine(own);
      }
    }
    const next = computeStatus(database, collections, engine);
    // The same object while nothing changed: React's useSyncExternalStore compares by reference.
    if (!status || JSON.stringify(status) !== JSON.stringify(next)) status = next;
    return status;
  }

  function flushStatus(): void {
    statusScheduled = false;
    const next = currentStatus();
    if (next === notified) return;
    notified = next;
    for (const listener of [...statusListeners]) {
      try {
        listener(next);
      } catch (error) {
        // An app's listener that throws must not stop the engine (or the other listeners).
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  // Every step of the tables goes to the persister, in order: a write takes every record changed
  // since the last one, each once with its value then, in one call (one transaction). A failed
  // write marks persistence as broken and stops writing, so a half-written store is never written over.
  let writeQueued = false;
  database.subscribe(() => {
    if (!persister || persistence === "error") database.forgetChanges();
    else if (!writeQueued && database.hasChanges()) {
      writeQueued = true;
      const target = persister;
      persisting = persisting
        .then(async () => {
          writeQueued = false;
          const batch = database.takeChanges();
          if (batch.length === 0) return;
          await target.write(batch);
          // Other tabs hear of records once they are stored (a tab taking over reads them back).
          tabs?.broadcastChanges(batch);
        })
        .catch((error: unknown) => {
          writeQueued = false;
          database.forgetChanges();
          persistence = "error";
          debug.log("persist-failed", { message: error instanceof Error ? error.message : String(error) });
          publishStatus();
        });
    }
    publishStatus();
  });

  function pauseAuth(reason: AuthPauseReason): void {
    if (paused) return;
    paused = "auth";
    debug.log("auth-paused", { reason });
    transport.disconnect();
    publishStatus();
    try {
      options.onAuthRequired?.(reason);
    } catch (error) {
      debug.log("on-auth-required-threw", { message: error instanceof Error ? error.message : String(error) });
    }
    // A refresh that keeps "succeeding" with credentials the server refuses would loop: after three
    // such rounds, wait for onAuthChange instead.
    if (options.authProvider.refresh && refreshesWithoutProgress < 3) {
      refreshesWithoutProgress++;
      void options.authProvider
        .refresh()
        .then((refreshed) => (refreshed ? resume() : undefined))
        .catch((error: unknown) => debug.log("refresh-failed", { message: error instanceof Error ? error.message : String(error) }));
    }
  }

  async function resume(): Promise<void> {
    if (!started || !leading) return;
    const token = await options.authProvider.getToken();
    if (!token) return;
    if (paused) debug.log("auth-resumed");
    paused = undefined;
    publishStatus();
    if (!offline) {
      transport.connect({ token });
      sender.schedule();
    }
  }

  // Deltas are applied a burst at a time (all that arrived before the engine's next microtask, as
  // from one socket read); any other event first applies those before it, so order holds.
  let pendingDeltas: SyncDelta[] = [];
  function applyPendingDeltas(): void {
    if (pendingDeltas.length === 0) return;
    const deltas = pendingDeltas;
    pendingDeltas = [];
    if (started) pager.onDeltas(deltas);
  }

  function onTransportEvent(event: TransportEvent): void {
    if (!started) return;
    if (event.type !== "delta") applyPendingDeltas();
    switch (event.type) {
      case "connected":
        refreshesWithoutProgress = 0;
        debug.log("connected");
        clearTimeout(resubscribeTimer);
        unavailable.clear();
        resubscribeAttempts = 0;
        transport.subscribe(collections);
        // Back online: replay now, not when a backoff from the outage would have.
        void sender.drain();
        break;
      case "disconnected":
        debug.log("disconnected", { reason: event.reason });
        clearTimeout(resubscribeTimer);
        // socket.io does not come back by itself after the server closed the connection.
        if (event.reason === "io server disconnect" && !paused && !offline) {
          clearTimeout(reconnectTimer);
          reconnectTimer = unref(setTimeout(() => void reconnect(), 1_000));
        }
        break;
      case "connect-error":
        debug.log("connect-error", { unauthorized: event.unauthorized });
        if (event.unauthorized) pauseAuth("unauthorized");
        break;
      case "subscribed":
        if (unavailable.delete(event.collection) && unavailable.size === 0) resubscribeAttempts = 0;
        pager.onSubscribed(event.collection, event.streams);
        break;
      case "sync-error":
        debug.log("sync-error", { collection: event.collection, code: event.code, message: event.message });
        // The server could not look the subscription up now (its database away): ask again, later
        // each time (1 s, doubling to 30 s), instead of going without deltas until a reconnect.
        if (event.code === "SYNC_UNAVAILABLE") {
          for (const collection of event.collection === "" ? collections : [event.collection]) unavailable.add(collection);
          clearTimeout(resubscribeTimer);
          const delay = Math.min(1_000 * 2 ** resubscribeAttempts++, 30_000);
          resubscribeTimer = unref(setTimeout(() => transport.subscribe([...unavailable]), delay));
        }
        break;
      case "delta":
        if (pendingDeltas.push(event.delta) === 1) queueMicrotask(applyPendingDeltas);
        break;
      case "auth-expired":
        pauseAuth(event.reason === "disabled" ? "disabled" : "expired");
        break;
      case "reconcile":
        void pager.reconcile().catch(() => undefined);
        break;
    }
    publishStatus();
  }

  async function reconnect(): Promise<void> {
    if (!context.active()) return;
    try {
      transport.connect({ token: await context.token() });
    } catch {
      // token() paused for auth
    }
  }

  async function userIdWithRetries(): Promise<string> {
    const attempts = Math.max(1, settings.startAuthRetryAttempts);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const id = await options.authProvider.getUserId();
      if (id) return id;
      if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, settings.startAuthRetryDelayMs));
    }
    throw SyncClientErrors.NOT_AUTHENTICATED(attempts);
  }

  async function boot(): Promise<void> {
    userId = await userIdWithRetries();
    try {
      persister = await openPersister(userId);
      const tables = await persister.load();
      database.load(tables);
      persistence = persister.kind;
      const schema = await applySchemaVersion(database, tables, settings.schemaVersion, options.migrate);
      if (schema.strategy !== "current") {
        debug.log("schema", { from: schema.from, to: schema.to, strategy: schema.strategy, pending: schema.pending, ...(schema.migrationError === undefined ? {} : { migrationFailed: String(schema.migrationError) }) });
      }
    } catch (error) {
      // The stored copy could not be read: run from memory and never write over it.
      database.load({ entities: [], _outbox: [], _cursors: [], _conflicts: [] });
      persistence = "error";
      debug.log("load-failed", { message: error instanceof Error ? error.message : String(error) });
    }
    started = true;
    purgeTombstones(database, settings.tombstoneRetentionMs, now());
    const coordinate = options.tabs !== false && (options.tabs !== undefined || persistence === "durable") && TabCoordinator.available(options.tabs || {});
    if (coordinate) {
      const channelName = `svc-sync:${options.name}:${(await sha256Hex(userId)).slice(0, 32)}`;
      tabs = new TabCoordinator(channelName, options.tabs || {}, {
        onChanges(changes) {
          heardOtherTab = true;
          if (!started) return;
          database.applyRemote(changes);
          if (context.active()) sender.schedule();
        },
        onWiped() {
          heardOtherTab = true;
          if (!started) return;
          database.wipe();
          pager.stop();
          if (context.active()) void pager.reconcile().catch(() => undefined);
        },
        onEngine(state) {
          heardOtherTab = true;
          leaderEngine = state;
          publishStatus();
        },
        onLeader: () => (engineStarting = startEngine()),
        onCall: (method) => leaderCall(method),
        engineState,
      });
      tabs.start();
    } else {
      engineStarting = startEngine();
    }
    booted = true;
    debug.log("started", { persistence, tabs: tabs ? (leading || engineStarting ? "leader" : "follower") : "off" });
    publishStatus();
    await engineStarting;
  }

  /** Runs the engine in this instance: socket, paging, outbox draining, timers. */
  async function startEngine(): Promise<void> {
    // Taking over from another tab: what it stored last may not have reached this tab yet.
    if (booted && heardOtherTab && persister && persistence !== "error") {
      await persisting;
      try {
        database.load(await persister.load());
      } catch (error) {
        persistence = "error";
        debug.log("load-failed", { message: error instanceof Error ? error.message : String(error) });
      }
    }
    if (!started) return;
    leading = true;
    stopAuth = options.authProvider.onAuthChange(() => {
      refreshesWithoutProgress = 0;
      if (paused) void resume();
    });
    stopTransport = transport.onEvent(onTransportEvent);
    if (settings.reconcileIntervalMs > 0) {
      reconcileTimer = unref(setInterval(() => context.active() && void pager.reconcile().catch(() => undefined), settings.reconcileIntervalMs));
    }
    if (tabs) debug.log("leading");
    publishStatus();
    if (!offline) {
      const token = await options.authProvider.getToken();
      if (token) transport.connect({ token });
      else pauseAuth("unauthorized");
      sender.schedule();
    }
  }

  /** What a follower tab asked of this (leading) one. */
  async function leaderCall(method: LeaderCall): Promise<unknown> {
    switch (method) {
      case "replayOutbox":
        return db.replayOutbox();
      case "reconcile":
        return db.reconcile();
      case "forceResync":
        return db.forceResync();
      case "goOffline":
        return db.goOffline();
      case "goOnline":
        return db.goOnline();
    }
  }

  /** A follower forwards engine calls to the leader tab. */
  const follower = () => tabs !== undefined && !leading;

  async function stop(): Promise<void> {
    if (startPromise) await startPromise.catch(() => undefined);
    if (engineStarting) await engineStarting.catch(() => undefined);
    applyPendingDeltas();
    started = false;
    startPromise = undefined;
    booted = false;
    heardOtherTab = false;
    leading = false;
    leaderEngine = undefined;
    lastEngineBroadcast = "";
    engineStarting = undefined;
    clearInterval(reconcileTimer);
    clearTimeout(reconnectTimer);
    clearTimeout(resubscribeTimer);
    unavailable.clear();
    stopAuth?.();
    stopTransport?.();
    stopAuth = stopTransport = undefined;
    pager.stop();
    sender.stop();
    transport.disconnect();
    paused = undefined;
    await persisting;
    // Hand leadership over only once this tab's last records are stored and announced.
    tabs?.stop();
    tabs = undefined;
    await persister?.close?.();
    // A closed persister cannot be used again: a later wipe opens its own, and start() reopens.
    persister = undefined;
    debug.log("stopped");
    publishStatus();
  }


  const requireStarted = (method: string) => {
    if (!started) throw SyncClientErrors.NOT_STARTED(method);
  };

  async function wipe(): Promise<void> {
    await persisting;
    if (persister) await persister.clear();
    else if (userId) {
      const stored = await openPersister(userId);
      try {
        await stored.clear();
      } finally {
        await stored.close?.();
      }
    }
    database.wipe();
    pager.stop();
    tabs?.broadcastWiped();
    debug.log("wiped");
    // A running client bootstraps again from cursor 0.
    if (context.active()) void pager.reconcile().catch(() => undefined);
  }

  const db: SyncDb = {
    start() {
      startPromise ??= boot().catch((error: unknown) => {
        startPromise = undefined;
        throw error;
      });
      return startPromise;
    },
    stop,
    goOffline() {
      if (follower()) return void tabs!.call("goOffline");
      if (offline) return;
      offline = true;
      debug.log("go-offline");
      transport.disconnect();
      sender.stop();
      publishStatus();
    },
    goOnline() {
      if (follower()) return void tabs!.call("goOnline");
      if (!offline) return;
      offline = false;
      debug.log("go-online");
      publishStatus();
      if (started && !paused) void reconnect().then(() => sender.schedule());
    },
    mutate(input) {
      requireStarted("mutate");
      if (!collections.includes(input.collection)) throw SyncClientErrors.UNKNOWN_COLLECTION(input.collection);
      if (input.operation !== "create" && input.operation !== "update" && input.operation !== "delete") throw SyncClientErrors.INVALID_MUTATION(`unknown operation ${String(input.operation)}`);
      if (input.operation !== "create" && !input.id) throw SyncClientErrors.INVALID_MUTATION(`${input.operation} needs the entity id`);
      if (input.operation !== "delete" && (input.data === null || typeof input.data !== "object")) throw SyncClientErrors.INVALID_MUTATION(`${input.operation} needs data`);
      if (input.maxAttempts !== undefined && !(Number.isInteger(input.maxAttempts) && input.maxAttempts >= 1)) throw SyncClientErrors.INVALID_MUTATION(`maxAttempts must be a whole number >= 1, not ${String(input.maxAttempts)}`);
      const id = input.id ?? mintId();
      const mutationId = mintId();
      const pending = database.pendingRows(input.collection, id);
      // Based on the server state the change was made over; behind another pending change of the
      // same entity, on that change's ack (set when it arrives).
      const baseVersion = input.operation === "create" || pending.length > 0 ? undefined : (database.serverState(input.collection, id)?.seq ?? 0);
      database.change(() =>
        database.putRow({
          mutationId,
          order: database.nextOrder(),
          collection: input.collection,
          operation: input.operation,
          id,
          ...(input.operation === "delete" || input.data === undefined ? {} : { data: structuredClone(input.data) }),
          ...(baseVersion === undefined ? {} : { baseVersion }),
          status: "queued",
          attempts: 0,
          ...(input.maxAttempts === undefined ? {} : { maxAttempts: input.maxAttempts }),
          createdAt: now(),
        }),
      );
      debug.log("mutate", { collection: input.collection, operation: input.operation, id, mutationId }, input.data);
      if (context.active()) sender.schedule();
      return { mutationId, id };
    },
    whenPersisted() {
      // The chain already holds a write that takes every change made up to now (see above).
      return persisting;
    },
    async reconcile() {
      requireStarted("reconcile");
      if (follower()) return void (await tabs!.call("reconcile"));
      if (!context.active()) return;
      await pager.reconcile();
    },
    async forceResync() {
      if (!started) return { ok: false, reason: "not-started", streams: 0, purged: 0, repaired: 0 };
      if (follower()) return ((await tabs!.call("forceResync")) as ForceResyncResult | undefined) ?? { ok: false, reason: "no-leader", streams: 0, purged: 0, repaired: 0 };
      if (offline) return { ok: false, reason: "offline", streams: 0, purged: 0, repaired: 0 };
      if (paused) return { ok: false, reason: "auth", streams: 0, purged: 0, repaired: 0 };
      debug.log("force-resync");
      return pager.forceResync();
    },
    async replayOutbox() {
      requireStarted("replayOutbox");
      if (follower()) return void (await tabs!.call("replayOutbox"));
      if (context.active()) await sender.drain();
    },
    async resolveConflict({ mutationId, strategy }) {
      requireStarted("resolveConflict");
      resolveConflictIn(database, mutationId, strategy, { now: now(), mintId });
      debug.log("conflict-resolved", { mutationId, strategy });
      if (context.active()) sender.schedule();
    },
    async retryFailed({ entityId }) {
      requireStarted("retryFailed");
      const count = requeueFailed(database, entityId);
      if (count > 0 && context.active()) sender.schedule();
      return count;
    },
    async signOut() {
      await stop();
      if (settings.wipeOnSignOut) await wipe();
      else database.wipe();
      userId = undefined;
      persister = undefined;
      debug.log("signed-out");
      publishStatus();
    },
    getSyncStatus() {
      return currentStatus();
    },
    onStatusChange(listener) {
      statusListeners.add(listener);
      return () => void statusListeners.delete(listener);
    },
    store: storeOf(database),
    outbox: outboxOf(database),
    debug,
  };
  wipers.set(db, wipe);
  return db;
}

/** Encrypted IndexedDB where the platform has it (browsers), memory elsewhere. */
function defaultPersisterFactory(options: SyncDbOptions): SyncPersisterFactory {
  if (!hasIndexedDb()) return createMemoryPersister();
  return createIndexedDbPersister({
    ...(options.keyProvider ? { keyProvider: options.keyProvider } : {}),
    ...(options.onDecryptFailure ? { onDecryptFailure: options.onDecryptFailure } : {}),
    ...(options.idbGetImpl ? { idbGetImpl: options.idbGetImpl } : {}),
    ...(options.idbSetImpl ? { idbSetImpl: options.idbSetImpl } : {}),
  });
}

/** The options that were given (so an explicit `undefined` keeps the default). */
function definedOf(options: SyncDbOptions): Partial<typeof SYNC_DB_DEFAULTS> {
  const keys = Object.keys(SYNC_DB_DEFAULTS) as Array<keyof typeof SYNC_DB_DEFAULTS>;
  return Object.fromEntries(keys.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));
}

/**
 * Deletes a client's local database — entities, outbox, cursors, conflicts — in memory and in its
 * persister. Pending changes are lost: call it on sign-out or when the data must go.
 *
 * @example
 * await wipeLocalData(db);
 */
export async function wipeLocalData(db: SyncDb): Promise<void> {
  const wipe = wipers.get(db);
  if (!wipe) throw SyncClientErrors.INVALID_OPTIONS("wipeLocalData needs a client made by createSyncDb");
  await wipe();
}
