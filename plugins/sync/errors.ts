import { defineErrors } from "../../kernel/errors.js";

/**
 * The sync plugin's errors. Its routes answer "sign in required" with `HttpErrors` and bad query
 * strings with `ValidationErrors`, like every route; mutation outcomes are nacks (ARCHITECTURE §4),
 * not errors. The entries here are what only sync can report: refused requests of its own routes,
 * and the mistakes of a synced model (found at start, or when code writes around the sequencing).
 *
 * @example
 * SyncErrors.BULK_WRITE_FORBIDDEN("Todo", "updateMany").code; // "SYNC_BULK_WRITE_FORBIDDEN"
 * throw SyncErrors.UNKNOWN_COLLECTION({ detail: "No synced collection notes" }); // 404
 */
export const SyncErrors = defineErrors("SYNC", {
  /** `collection` names no synced model of this app. */
  UNKNOWN_COLLECTION: { status: 404, title: "Unknown collection" },
  /** The caller asked for a stream it is not a member of. */
  STREAM_FORBIDDEN: { status: 403, title: "Forbidden" },
  /** The collection's router does not let the caller list it, so it cannot be synced either. */
  COLLECTION_FORBIDDEN: { status: 403, title: "Collection not permitted" },
  /** `sync:subscribe` past the per-socket limit of collection subscriptions (SPEC §8: 50). */
  TOO_MANY_SUBSCRIPTIONS: { status: 429, title: "Too many subscriptions" },
  /** A malformed socket event payload (`sync:subscribe`, `sync:mutateBatch`): answered on `sync:error`. */
  INVALID_EVENT: { status: 400, title: "Malformed event" },
  /**
   * `sync:subscribe` could not be answered for now (the credential or the caller's streams could
   * not be looked up: the database is away): subscribe again later.
   */
  UNAVAILABLE: { status: 503, title: "Sync temporarily unavailable" },
  /** `POST /sync/mutate` refused a mutation: `conflict` (the body also carries `{nack}`). */
  MUTATION_CONFLICT: { status: 409, title: "Mutation conflicts with the server's entity" },
  /** A mutation refused with nack `forbidden`. */
  MUTATION_FORBIDDEN: { status: 403, title: "Mutation not permitted" },
  /** A mutation refused with nack `validation`. */
  MUTATION_INVALID: { status: 422, title: "Mutation is invalid" },
  /** A mutation refused with nack `not_found`. */
  MUTATION_NOT_FOUND: { status: 404, title: "Mutation target not found" },
  /** A mutation refused with nack `rate_limited`. */
  MUTATION_RATE_LIMITED: { status: 429, title: "Too many mutations" },
  /** A mutation failed with nack `error` (logged; no internals in the answer). */
  MUTATION_FAILED: { status: 500, title: "Mutation failed" },
  /**
   * A synced document was saved from a stale copy: another write changed it since it was loaded
   * (its `_syncSeq` moved). Load it again and reapply the change.
   */
  STALE_DOCUMENT: { status: 409, title: "Conflict" },
  /** `SYNC_MUTATIONS` or another post-start service was resolved before the plugin started. */
  NOT_STARTED: { message: () => "The sync plugin has not started: resolve its services in a start() that depends on it, or per request" },
  /** A synced model's `_id` is not a string (clients mint ids offline). */
  ID_NOT_STRING: { message: (model: string) => `${model} is synced, so its _id must be a String (clients mint UUIDs offline): add _id: { type: String } to its schema` },
  /** A synced model lacks `isDeletedPlugin` (deletes must be tombstones clients can see). */
  SOFT_DELETE_MISSING: { message: (model: string) => `${model} is synced, so it must use isDeletedPlugin (deletes are tombstones with a seq)` },
  /** A synced model's schema did not get `syncPlugin` before the model compiled. */
  PLUGIN_MISSING: { message: (model: string) => `${model} is synced, so schema.plugin(syncPlugin) must be applied before mongoose.model() compiles it` },
  /** A custom (function) scope without `snapshotFilter`: the server cannot tell which documents a user may page. */
  SNAPSHOT_FILTER_MISSING: { message: (model: string) => `${model} has a custom sync scope (a function), which needs sync.snapshotFilter(user)` },
  /** A tenant or custom scope without the sync plugin's `getUserScopes` option. */
  USER_SCOPES_MISSING: { message: (model: string) => `${model} has a tenant or custom sync scope, which needs syncApp({ getUserScopes }) to say which scopes a user is in` },
  /** Two routers (or two apps) gave one model different sync scopes. */
  SCOPE_CONFLICT: { message: (model: string) => `${model} is served with two different sync scopes; one model streams one way` },
  /** A scope names a field the schema does not have. */
  SCOPE_FIELD_UNKNOWN: { message: (model: string, field: string) => `${model}: sync scope field "${field}" is not in the schema` },
  /** A write that would bypass per-stream sequencing (updateMany, deleteMany, bulkWrite, ...). */
  BULK_WRITE_FORBIDDEN: {
    message: (model: string, operation: string) =>
      `${model} is synced: ${operation} would bypass per-stream sequencing (rule: synced models are written one document at a time with save(), or through /sync/mutate)`,
  },
  /** `realtimeApp()` serves signed-in sockets only, so the app needs an `AUTHENTICATOR` (the auth plugin). */
  REALTIME_NEEDS_AUTH: { message: () => "realtimeApp() serves signed-in sockets only, and this app has no AUTHENTICATOR: register the auth plugin too" },
  /**
   * The database refused to keep post-images of a synced collection (`collMod
   * changeStreamPreAndPostImages`, MongoDB 6.0 or later): deltas carry each write's own document.
   */
  POST_IMAGES_UNAVAILABLE: {
    message: (collection: string, reason: string) => `Sync deltas need change-stream post-images of "${collection}" (MongoDB 6.0+, a replica set), and enabling them failed: ${reason}`,
  },
  /** A synced document was saved before the sync plugin bound its model (or in an app without it). */
  MODEL_NOT_BOUND: { message: (model: string) => `${model} uses syncPlugin but no started sync plugin serves it: register svc/sync's syncApp() and a modelRouter with the sync option` },
  /** The scope computed no stream for a document (e.g. its owner field is empty). */
  NO_STREAM: { message: (model: string, id: string) => `${model} ${id}: its sync scope gives no stream (is the owner or tenant field set?)` },
});
