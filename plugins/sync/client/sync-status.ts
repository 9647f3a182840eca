import type { LocalDatabase } from "./local-database.js";

/** Per-collection counts of `SyncStatus.collections`. */
export interface CollectionSyncStatus {
  readonly queuedCount: number;
  readonly conflictCount: number;
  readonly failedCount: number;
}

/**
 * Where the client stands (SPEC §2.8). Counts come from `_outbox`: `queuedCount` every row not
 * yet acknowledged (queued, in conflict or failed), `conflictCount` rows in conflict,
 * `failedCount` rows refused for good, `blockedEntities` entities whose later changes wait on one
 * of those.
 *
 * @example
 * db.onStatusChange((status) => banner.textContent = status.isOnline ? `${status.queuedCount} to send` : "Offline");
 */
export interface SyncStatus {
  /** The transport is connected. */
  readonly isOnline: boolean;
  /** Snapshots are being paged or the outbox is being sent. */
  readonly isSyncing: boolean;
  readonly queuedCount: number;
  readonly conflictCount: number;
  readonly failedCount: number;
  /** `auth` while replay waits for fresh credentials; absent otherwise. */
  readonly paused?: "auth";
  readonly blockedEntities: number;
  /** The outbox is being sent. */
  readonly draining: boolean;
  /** Mutations settled (acked or refused) in the current drain, and how many it set out to send. */
  readonly sentThisDrain: number;
  readonly totalThisDrain: number;
  /** Stream → highest seq applied in order (its cursor). */
  readonly streams: Readonly<Record<string, number>>;
  readonly collections: Readonly<Record<string, CollectionSyncStatus>>;
  /** `durable` (survives a restart), `memory`, or `error` (the persister failed; the app runs from memory). */
  readonly persistence: "durable" | "memory" | "error";
}

/** The engine's own part of the status (what the tables do not say). */
export interface EngineState {
  readonly isOnline: boolean;
  readonly isSyncing: boolean;
  readonly paused?: "auth";
  readonly draining: boolean;
  readonly sentThisDrain: number;
  readonly totalThisDrain: number;
  readonly persistence: SyncStatus["persistence"];
}

/** The status of `collections` from the tables and the engine's state. */
export function computeStatus(database: LocalDatabase, collections: readonly string[], engine: EngineState): SyncStatus {
  const perCollection: Record<string, { queuedCount: number; conflictCount: number; failedCount: number }> = {};
  for (const collection of collections) perCollection[collection] = { queuedCount: 0, conflictCount: 0, failedCount: 0 };
  let queuedCount = 0;
  let conflictCount = 0;
  let failedCount = 0;
  const counts = database.outboxCounts();
  for (const [collection, count] of counts.collections) {
    if (count.queued === 0 && !collections.includes(collection)) continue;
    perCollection[collection] = { queuedCount: count.queued, conflictCount: count.conflict, failedCount: count.failed };
    queuedCount += count.queued;
    conflictCount += count.conflict;
    failedCount += count.failed;
  }
  const streams: Record<string, number> = {};
  for (const cursor of database.cursorList()) streams[cursor.stream] = cursor.cursor;
  return {
    isOnline: engine.isOnline,
    isSyncing: engine.isSyncing,
    queuedCount,
    conflictCount,
    failedCount,
    ...(engine.paused ? { paused: engine.paused } : {}),
    blockedEntities: counts.blockedEntities,
    draining: engine.draining,
    sentThisDrain: engine.sentThisDrain,
    totalThisDrain: engine.totalThisDrain,
    streams,
    collections: perCollection,
    persistence: engine.persistence,
  };
}
