import type { SyncDb, SyncStatus } from "../index.js";

/** Resolves with the first status matching `predicate` (the current one included); fails after `ms` with the last status seen. */
export function waitForStatus(db: SyncDb, predicate: (status: SyncStatus) => boolean, ms = 20_000): Promise<SyncStatus> {
  return new Promise((resolve, reject) => {
    if (predicate(db.getSyncStatus())) return resolve(db.getSyncStatus());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`status never matched; last: ${JSON.stringify(db.getSyncStatus())}`));
    }, ms);
    const stop = db.onStatusChange((status) => {
      if (!predicate(status)) return;
      clearTimeout(timer);
      stop();
      resolve(status);
    });
  });
}

/** Polls `check` (every 10 ms) until it returns true; fails after `ms` with `describe()`. */
export async function eventually(check: () => boolean, describe: () => string = () => "", ms = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`condition never held: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Everything sent and settled: online, nothing queued or being sent, no paging. */
export const settled = (status: SyncStatus) => status.isOnline && !status.isSyncing && status.queuedCount === 0;
