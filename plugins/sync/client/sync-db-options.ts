import type { SyncAuthProvider } from "./auth-provider.js";
import type { SyncDebugOptions } from "./debug-log.js";
import type { SyncPersisterFactory } from "./persister.js";
import type { SchemaMigration } from "./schema-migration.js";
import type { SyncTabsOptions } from "./tab-coordinator.js";
import type { SyncHttpChannel, SyncTransport } from "./transport.js";

/**
 * Where the encrypted persister gets 32 bytes of key material the first time on a device (it then
 * keeps a non-extractable key derived from them): `serverKeyProvider()` (the default, `GET
 * /sync/key`) or `localKeyProvider()` (random, never leaves the device).
 *
 * @example
 * const provider: SyncKeyProvider = { getKey: async ({ httpChannel, token }) => fromMyVault(await httpChannel.key(token)) };
 */
export interface SyncKeyProvider {
  getKey(context: { readonly userId: string; readonly httpChannel: SyncHttpChannel; readonly token: string }): Promise<Uint8Array>;
}

/**
 * What the app decides when persisted data cannot be decrypted: `"wipe"` (the default without a
 * handler) deletes the local copy, pending changes included, and syncs again; `"keep"` leaves it
 * stored and runs from memory (`persistence: "error"`).
 *
 * @example
 * const onDecryptFailure: DecryptFailureHandler = async ({ error }) => (confirm("Local data unreadable: reset it?") ? "wipe" : "keep");
 */
export type DecryptFailureHandler = (context: { readonly name: string; readonly userId: string; readonly error: unknown }) => Promise<"wipe" | "keep"> | "wipe" | "keep";

/**
 * Options of `createSyncDb` (SPEC §2.8). See docs/sync-client.md for each one.
 *
 * @example
 * const options: SyncDbOptions = { name: "todo-app", collections: ["todos"], baseUrl: "https://api.example.com", authProvider };
 */
export interface SyncDbOptions {
  /** Names the local database (one per name and user). */
  readonly name: string;
  /** The synced collections (their MongoDB collection names, e.g. `todos`). */
  readonly collections: readonly string[];
  readonly authProvider: SyncAuthProvider;
  /** The app's URL; required unless both `transport` and `httpChannel` are given. */
  readonly baseUrl?: string;
  /** Default: socket.io to `baseUrl` (`createSocketTransport`). */
  readonly transport?: SyncTransport;
  /** Default: fetch to `baseUrl` (`createHttpChannel`). */
  readonly httpChannel?: SyncHttpChannel;
  /** Default: encrypted IndexedDB (`createIndexedDbPersister`) where `indexedDB` exists, else in memory (`createMemoryPersister()`). */
  readonly persisterFactory?: SyncPersisterFactory;
  /** Key material of the default encrypted persister; default `serverKeyProvider()` (`GET /sync/key`). */
  readonly keyProvider?: SyncKeyProvider;
  /** Test hooks of the default IndexedDB persister (see `IndexedDbPersisterOptions`): a store read, a record write. */
  readonly idbGetImpl?: (key: string) => Promise<unknown>;
  readonly idbSetImpl?: (key: string, value: unknown) => Promise<void>;
  /** Every how many ms all streams are paged from their cursors; default 300000; 0 disables. */
  readonly reconcileIntervalMs?: number;
  /** The least time between two reconciles of one stream caused by a seq jump; default 30000. */
  readonly seqJumpReconcileMinIntervalMs?: number;
  /** Clock (ms since epoch) for timestamps, rate limits and tombstone ages; default `Date.now`. */
  readonly now?: () => number;
  /** Random numbers in [0, 1) for ids and backoff jitter; default `Math.random` (ids: `crypto.randomUUID`). */
  readonly random?: () => number;
  readonly debug?: boolean | SyncDebugOptions;
  /** Called once per auth-pause episode (credentials refused, or `sync:auth-expired`). */
  readonly onAuthRequired?: (reason: "expired" | "disabled" | "unauthorized") => void;
  /** `signOut()` also wipes the local database; default false. */
  readonly wipeOnSignOut?: boolean;
  /** Mutations per `sync:mutateBatch` (at most 100, the server's limit); default 50. */
  readonly batchSize?: number;
  /** A conflict halts all sending, not only the entity's later changes; default false. */
  readonly haltQueueOnConflict?: boolean;
  /** Undecryptable stored data (default persister): default wipe and sync again. */
  readonly onDecryptFailure?: DecryptFailureHandler;
  /** How long deleted entities are kept before they are purged; default 90 days; 0 keeps them forever. */
  readonly tombstoneRetentionMs?: number;
  /** Attempts of `authProvider.getUserId()` in `start()`; default 3; 1 disables retries. */
  readonly startAuthRetryAttempts?: number;
  /** Wait between those attempts; default 250 ms. */
  readonly startAuthRetryDelayMs?: number;
  /**
   * Several tabs on one database: one leader runs the engine, the others follow (docs). Default
   * on with a durable persister (Web Locks + BroadcastChannel where present); `false` turns it off;
   * an object injects the lock manager and channel (and turns it on with any persister).
   */
  readonly tabs?: SyncTabsOptions | false;
  /** Entities per snapshot page (at most 1000); default 500. */
  readonly snapshotPageSize?: number;
  /**
   * The shape of the app's local data; raise it when a release changes the synced models. A stored
   * database of another version is migrated (`migrate`) or re-synced, its pending mutations kept. Default 1.
   */
  readonly schemaVersion?: number;
  /** Migrates stored tables to `schemaVersion`; default: re-sync the server state, keep the outbox. */
  readonly migrate?: SchemaMigration;
}

/**
 * The defaults of SPEC §2.8 (and `snapshotPageSize`), applied to every option left out.
 *
 * @example
 * SYNC_DB_DEFAULTS.batchSize; // 50
 */
export const SYNC_DB_DEFAULTS = Object.freeze({
  reconcileIntervalMs: 300_000,
  seqJumpReconcileMinIntervalMs: 30_000,
  batchSize: 50,
  haltQueueOnConflict: false,
  wipeOnSignOut: false,
  tombstoneRetentionMs: 7_776_000_000,
  startAuthRetryAttempts: 3,
  startAuthRetryDelayMs: 250,
  snapshotPageSize: 500,
  schemaVersion: 1,
});
