import type { SyncLockManager } from "../client/index.js";

/**
 * A stand-in for the browser's `navigator.locks` inside one process (Node has no Web Locks):
 * hand the same one to several clients of one database to test how tabs elect the leader and
 * hand over when it stops. Exclusive locks, granted in request order; `signal` withdraws a
 * waiting request (it rejects with an `AbortError`).
 *
 * @example
 * const locks = createTabLocks();
 * const tabA = createSyncDb({ ...options, tabs: { locks } });
 * const tabB = createSyncDb({ ...options, tabs: { locks } });
 * await tabA.start(); await tabB.start(); // tabA leads; tabB takes over when tabA stops
 */
export function createTabLocks(): SyncLockManager & { holder(name: string): boolean } {
  const queues = new Map<string, Array<() => void>>();
  const held = new Set<string>();
  const grantNext = (name: string) => {
    const next = queues.get(name)?.shift();
    if (next) next();
    else held.delete(name);
  };
  return {
    holder: (name) => held.has(name),
    request(name, options, callback) {
      return new Promise((resolve, reject) => {
        const grant = () => {
          held.add(name);
          Promise.resolve()
            .then(() => callback({ name, mode: "exclusive" }))
            .then(resolve, reject)
            .finally(() => grantNext(name));
        };
        if (options.signal?.aborted) return reject(new DOMException("The request was aborted", "AbortError"));
        if (!held.has(name)) return grant();
        const queue = queues.get(name) ?? [];
        queues.set(name, queue);
        queue.push(grant);
        options.signal?.addEventListener("abort", () => {
          const index = queue.indexOf(grant);
          if (index < 0) return;
          queue.splice(index, 1);
          reject(new DOMException("The request was aborted", "AbortError"));
        });
      });
    },
  };
}
