import type { MutationOperation, NackCode } from "./wire-types.js";

/** The key of an entity in the client's tables and in the persisted `entities` table. */
export const entityKey = (collection: string, id: string): string => `${collection}/${id}`;

/** The collection and id an `entityKey` names (collection names hold no `/`; ids may). */
export function entityOfKey(key: string): { collection: string; id: string } {
  const slash = key.indexOf("/");
  return { collection: key.slice(0, slash), id: key.slice(slash + 1) };
}

/** The server's state of one entity, as last received (snapshot, delta or ack). */
export interface ServerEntityRecord {
  readonly collection: string;
  readonly id: string;
  /** The entity's fields; `{id}` alone for a tombstone whose data the server did not send. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The entity's seq in `stream` (0: not known to be on the server). */
  readonly seq: number;
  readonly deleted: boolean;
  /** The stream this state came from, when known (acks do not say). */
  readonly stream?: string;
  /** When (by the client's `now`) the tombstone was stored, for `tombstoneRetentionMs`. */
  readonly deletedAt?: number;
}

/**
 * Where a queued mutation stands: `queued` (will be sent), `conflict` (the server had moved on:
 * waits for `resolveConflict`), `failed` (refused for good — validation, forbidden, not found:
 * waits for `retryFailed` or `resolveConflict`). The last two block the entity's later mutations.
 */
export type OutboxStatus = "queued" | "conflict" | "failed";

/** One row of `_outbox`: a local mutation the server has not acknowledged yet. */
export interface OutboxRow {
  readonly mutationId: string;
  /** Position in the queue (increasing); mutations of one entity are sent in this order. */
  readonly order: number;
  readonly collection: string;
  readonly operation: MutationOperation;
  readonly id: string;
  readonly data?: Readonly<Record<string, unknown>>;
  /**
   * The server seq this change was based on. Absent on a create, and on a change queued behind
   * another unacknowledged change of the same entity: it is then set from that change's ack.
   */
  readonly baseVersion?: number;
  readonly status: OutboxStatus;
  /** How many times it was sent without an answer that settled it. */
  readonly attempts: number;
  /**
   * The attempts it may take (`mutate({maxAttempts})`): once that many sends failed retryably
   * (network, timeout, server error) it fails like a refusal. Absent: retried until it goes through.
   */
  readonly maxAttempts?: number;
  readonly createdAt: number;
}

/** One row of `_cursors`: how far a stream has been applied. */
export interface CursorRecord {
  readonly stream: string;
  readonly collection: string;
  readonly cursor: number;
}

/**
 * One row of `_conflicts`: a mutation the server refused and the app must decide about. `code`
 * `conflict` carries the server's current entity; other codes (`validation`, `forbidden`,
 * `not_found`) are failed mutations, listed here so a rejection is never silent.
 */
export interface ConflictRecord {
  readonly mutationId: string;
  readonly collection: string;
  readonly entityId: string;
  readonly operation: MutationOperation;
  /** What this client tried to write. */
  readonly data?: Readonly<Record<string, unknown>>;
  readonly code: NackCode;
  readonly message?: string;
  readonly serverDoc?: Readonly<Record<string, unknown>>;
  readonly serverSeq?: number;
  readonly serverDeleted?: boolean;
  /** When (by the client's `now`) it was recorded. */
  readonly at: number;
}

/**
 * The one row of `_meta`: the schema version the stored tables were written with (the
 * `schemaVersion` option). A different version at start means the app changed its data between
 * releases: the tables are migrated or re-synced, pending mutations kept (docs/sync-client.md).
 */
export interface SchemaRecord {
  readonly key: "schema";
  readonly version: number;
}
