import { SyncClientErrors } from "./errors.js";
import type { LocalDatabase } from "./local-database.js";

/** How `resolveConflict` settles a conflict or failed mutation (SPEC §3.2). */
export type ConflictStrategy = "useServer" | "keepMine";

/**
 * Settles one conflict or failed mutation in the tables (SPEC §3.2).
 * `useServer`: the mutation and the entity's later ones (built on it) are discarded and the
 * entity becomes the server's data and seq (a tombstone when the server deleted it).
 * `keepMine`: the mutation goes back in its place in the queue under a fresh id, based on the
 * server's seq (a refused create becomes an update of the server's entity); local data stays.
 */
export function resolveConflictIn(database: LocalDatabase, mutationId: string, strategy: ConflictStrategy, context: { now: number; mintId: () => string }): void {
  // Checked before anything changes: a typo ("keep-mine") from plain JS or a UI must not fall
  // through to useServer, which discards the user's change.
  if (strategy !== "useServer" && strategy !== "keepMine") throw SyncClientErrors.UNKNOWN_STRATEGY(String(strategy));
  const row = database.outboxRow(mutationId);
  const conflict = database.conflict(mutationId);
  if (!row || !conflict) throw SyncClientErrors.UNKNOWN_CONFLICT(mutationId);
  database.change(() => {
    database.removeConflict(mutationId);
    if (strategy === "keepMine") {
      const overServer = conflict.code === "conflict" && conflict.serverSeq !== undefined;
      database.removeRow(mutationId);
      database.putRow({
        ...row,
        mutationId: context.mintId(),
        operation: overServer && row.operation === "create" ? "update" : row.operation,
        ...(overServer ? { baseVersion: conflict.serverSeq } : {}),
        status: "queued",
        attempts: 0,
      });
      return;
    }
    for (const later of database.pendingRows(row.collection, row.id).filter((other) => other.order >= row.order)) {
      database.removeRow(later.mutationId);
      database.removeConflict(later.mutationId);
    }
    const previous = database.serverState(row.collection, row.id);
    // Deltas newer than the conflict may have come in since: then the store already has a later server state.
    if (conflict.serverSeq === undefined || (previous && previous.seq > conflict.serverSeq)) return;
    const deleted = conflict.serverDeleted ?? false;
    database.putServerState({
      collection: row.collection,
      id: row.id,
      data: conflict.serverDoc ? { ...conflict.serverDoc, id: row.id } : (previous?.data ?? { id: row.id }),
      seq: conflict.serverSeq,
      deleted,
      ...(previous?.stream === undefined ? {} : { stream: previous.stream }),
      ...(deleted ? { deletedAt: previous?.deletedAt ?? context.now } : {}),
    });
  });
}

/** Puts the failed rows of an entity back in the queue (their records leave `_conflicts`); returns how many. */
export function requeueFailed(database: LocalDatabase, entityId: string): number {
  const failed = database.outbox().filter((row) => row.id === entityId && row.status === "failed");
  database.change(() => {
    for (const row of failed) {
      database.removeConflict(row.mutationId);
      database.putRow({ ...row, status: "queued", attempts: 0 });
    }
  });
  return failed.length;
}
