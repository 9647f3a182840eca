// The sync protocol as the client sees it (docs/sync.md, SPEC §6.1). Declared here rather than
// imported from the server files, so the browser bundle never reaches mongoose or express; the
// ack and nack shapes come from the server's nack.ts, which imports nothing.
import type { SyncAck, SyncNack } from "../nack.js";

export type { NackCode, SyncAck, SyncNack } from "../nack.js";

/** A mutation operation. */
export type MutationOperation = "create" | "update" | "delete";

/** One mutation as sent over `sync:mutate`, `sync:mutateBatch` or `POST /sync/mutate`. */
export interface WireMutation {
  readonly mutationId: string;
  readonly collection: string;
  readonly operation: MutationOperation;
  readonly id: string;
  readonly data?: Record<string, unknown>;
  /** The server seq the change was based on (update and delete). */
  readonly baseVersion?: number;
}

/** One entry of a batch answer: applied, refused, or not tried because an earlier entry was refused. */
export type BatchOutcome = { readonly ack: SyncAck } | { readonly nack: SyncNack } | { readonly notAttempted: { readonly mutationId: string } };

/** A committed write pushed to a stream's subscribers (`sync:delta`). */
export interface SyncDelta {
  readonly collection: string;
  readonly id: string;
  readonly method: MutationOperation;
  readonly data?: Record<string, unknown>;
  readonly seq: number;
  readonly stream: string;
  readonly deleted?: boolean;
  readonly frontierSeq?: number;
}

/** One entity of a snapshot page or of `GET /sync/entities`. */
export interface SnapshotEntity {
  readonly id: string;
  readonly data: Record<string, unknown>;
  readonly seq: number;
  readonly deleted: boolean;
}

/** A page of `GET /sync/snapshot`. */
export interface SnapshotPage {
  readonly stream: string;
  readonly entities: readonly SnapshotEntity[];
  readonly cursor: number;
  readonly hasMore: boolean;
  readonly frontierSeq: number;
}

/** One stream the user is in (`GET /sync/streams`). */
export interface StreamMembership {
  readonly collection: string;
  readonly stream: string;
}
