import type { ChangeStreamDocument, Document } from "mongodb";
import { entityData } from "./entity-shape.js";
import type { SyncTombstone } from "./sync-bookkeeping.js";

/**
 * One committed write as a stream's subscribers get it (SPEC §6.1 `sync:delta`). `frontierSeq`
 * equals `seq`: deltas of a stream are sent in seq order, so every seq of the stream up to it has
 * been sent before it (a client whose last applied seq is `seq - 1` may move its cursor to `seq`;
 * a bigger jump means it missed some and should page the snapshot from its cursor).
 */
export interface SyncDelta {
  readonly collection: string;
  readonly id: string;
  /** `create` (new, or moved into this stream), `update`, or `delete` (soft delete, or moved out). */
  readonly method: "create" | "update" | "delete";
  /** The entity's data at this seq; absent when it moved out of the stream (its data is no longer this stream's). */
  readonly data?: Record<string, unknown>;
  readonly seq: number;
  readonly stream: string;
  readonly deleted?: boolean;
  readonly frontierSeq: number;
}

/**
 * The delta of one change event of a synced collection or of the tombstone collection, built
 * from the event's post-image (the document as this write left it, not as it is by the time the
 * event is read: a later write or move must not leak into this seq). Undefined for events that
 * carry no sequenced write (hard deletes made outside svc, events without a post-image).
 *
 * @example
 * const delta = deltaOf(change, "svc_sync_tombstones");
 * if (delta) io.local.to(roomOf(delta.stream)).emit("sync:delta", delta);
 */
export function deltaOf(change: ChangeStreamDocument<Document>, tombstoneCollection: string): SyncDelta | undefined {
  if (change.operationType !== "insert" && change.operationType !== "update" && change.operationType !== "replace") return undefined;
  const doc = change.fullDocument;
  if (!doc) return undefined;
  if (change.ns.coll === tombstoneCollection) {
    const tombstone = doc as unknown as SyncTombstone;
    return { collection: tombstone.collectionName, id: tombstone.entityId, method: "delete", seq: tombstone.seq, stream: tombstone.stream, deleted: true, frontierSeq: tombstone.seq };
  }
  const stream = doc._syncStream;
  const seq = doc._syncSeq;
  if (typeof stream !== "string" || typeof seq !== "number") return undefined;
  const deleted = doc.deleted === true;
  const movedIn = change.operationType === "update" && change.updateDescription?.updatedFields !== undefined && "_syncStream" in change.updateDescription.updatedFields;
  const method = deleted ? "delete" : change.operationType === "insert" || movedIn ? "create" : "update";
  return { collection: change.ns.coll, id: String(doc._id), method, data: entityData(doc), seq, stream, deleted, frontierSeq: seq };
}

/**
 * The socket.io room of a stream (prefixed, so no other plugin's room can collide with it).
 *
 * @example
 * roomOf("todos|owner:u1"); // "sync:todos|owner:u1"
 */
export function roomOf(stream: string): string {
  return `sync:${stream}`;
}
