/** Where the mark lives: a registered symbol, so every copy of the package agrees on it. */
const STALE_WRITE = Symbol.for("svc.staleWrite");

/**
 * Marks `error` as "this save came from a copy of the document that another write changed after
 * it was loaded". A plugin that versions documents throws such errors from `save()` (the sync
 * plugin's `SYNC_STALE_DOCUMENT`); a writer that can redo its work from a fresh load — the REST
 * routes' PATCH and DELETE — does so instead of answering 409.
 *
 * @example
 * throw markStaleWrite(SyncErrors.STALE_DOCUMENT({ detail: "Todo 42 changed since it was loaded" }));
 */
export function markStaleWrite<E extends object>(error: E): E {
  Object.defineProperty(error, STALE_WRITE, { value: true });
  return error;
}

/**
 * Whether `error` was marked by `markStaleWrite`.
 *
 * @example
 * if (isStaleWrite(error)) return updateFromFreshCopy();
 */
export function isStaleWrite(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { [STALE_WRITE]?: unknown })[STALE_WRITE] === true;
}
