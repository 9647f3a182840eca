import { useCallback, useMemo, useSyncExternalStore } from "react";
import type { ConflictRecord, ConflictStrategy, SyncStatus } from "../client/index.js";
import { useSyncDbClient } from "./sync-db-context.js";

/**
 * The client's `SyncStatus` (online, queued, conflicts, persistence...), re-rendering when it changes.
 *
 * @example
 * const status = useSyncStatus();
 * return <p>{status.isOnline ? "Online" : "Offline"} · {status.queuedCount} to send</p>;
 */
export function useSyncStatus(): SyncStatus {
  const client = useSyncDbClient();
  const subscribe = useCallback((listener: () => void) => client.onStatusChange(listener), [client]);
  const read = useCallback(() => client.getSyncStatus(), [client]);
  return useSyncExternalStore(subscribe, read, read);
}

/** What `useConflicts` returns. */
export interface ConflictsState {
  /** Conflicts and failed mutations waiting for a decision, oldest first. */
  readonly conflicts: readonly ConflictRecord[];
  /** Settles one: `useServer` takes the server's entity, `keepMine` sends the change again on top of it. */
  resolve(mutationId: string, strategy: ConflictStrategy): Promise<void>;
}

/**
 * The conflicts and failed mutations of the store, and a way to settle them.
 *
 * @example
 * const { conflicts, resolve } = useConflicts();
 * return conflicts.map((c) => <button key={c.mutationId} onClick={() => resolve(c.mutationId, "keepMine")}>Keep mine</button>);
 */
export function useConflicts(): ConflictsState {
  const client = useSyncDbClient();
  const subscribe = useCallback((listener: () => void) => client.store.subscribe(listener), [client]);
  const read = useCallback(() => client.store.listConflicts(), [client]);
  const conflicts = useSyncExternalStore(subscribe, read, read);
  const resolve = useCallback((mutationId: string, strategy: ConflictStrategy) => client.resolveConflict({ mutationId, strategy }), [client]);
  return useMemo(() => ({ conflicts, resolve }), [conflicts, resolve]);
}
