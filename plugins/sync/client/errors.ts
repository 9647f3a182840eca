import { defineErrors } from "../../../kernel/errors.js";

/**
 * The sync client's errors: mistakes of the calling code, thrown synchronously or from `start()`.
 * Refusals by the server are not errors here — they are nacks, kept as conflicts or failures the
 * app reads from `getSyncStatus()` and `listConflicts()`.
 *
 * @example
 * try { await db.start(); } catch (error) { if (hasErrorCode(error, SyncClientErrors.NOT_AUTHENTICATED.code)) showLogin(); }
 */
export const SyncClientErrors = defineErrors("SYNC_CLIENT", {
  /** `createSyncDb` was given options it cannot work with (a missing `name`, `collections` or `baseUrl`). */
  INVALID_OPTIONS: { message: (problem: string) => `createSyncDb: ${problem}` },
  /** `start()` found no signed-in user after every retry of `authProvider.getUserId()`. */
  NOT_AUTHENTICATED: { message: (attempts: number) => `No authenticated user after ${attempts} attempt(s) of authProvider.getUserId()` },
  /** A method that needs the local database was called before `start()` resolved (or after `signOut()`). */
  NOT_STARTED: { message: (method: string) => `${method}() needs a started sync client: await start() first` },
  /** `mutate()` named a collection that is not in the client's `collections`. */
  UNKNOWN_COLLECTION: { message: (collection: string) => `Collection "${collection}" is not synced by this client` },
  /** `mutate()` was given an invalid mutation (no id for update or delete, an unknown operation, or no data to create). */
  INVALID_MUTATION: { message: (problem: string) => `Invalid mutation: ${problem}` },
  /** `resolveConflict()` named a mutation that has no recorded conflict or failure. */
  UNKNOWN_CONFLICT: { message: (mutationId: string) => `No conflict or failed mutation with id ${mutationId}` },
  /** `resolveConflict()` was given a strategy other than `useServer` or `keepMine` (nothing is changed). */
  UNKNOWN_STRATEGY: { message: (strategy: string) => `Unknown conflict strategy ${JSON.stringify(strategy)}: use "useServer" or "keepMine"` },
});
