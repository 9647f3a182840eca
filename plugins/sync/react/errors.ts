import { defineErrors } from "../../../kernel/errors.js";

/**
 * Mistakes in the use of `svc/sync/react`, thrown while rendering.
 *
 * @example
 * try { render(<TodoList />); } catch (error) { hasErrorCode(error, SyncReactErrors.NO_PROVIDER.code); }
 */
export const SyncReactErrors = defineErrors("SYNC_REACT", {
  /** A hook of `svc/sync/react` was rendered outside a `SyncDbProvider`. */
  NO_PROVIDER: { message: () => "Sync hooks need a <SyncDbProvider client={db}> above them" },
  /** `retries` of a collection mutation hook is neither false nor a positive whole number. */
  INVALID_RETRIES: { message: (value: string) => `retries must be false or a positive whole number, not ${value}` },
});
