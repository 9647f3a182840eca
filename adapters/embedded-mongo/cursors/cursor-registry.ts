import { randomBytes } from "node:crypto";
import { Long } from "bson";
import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { StoredRecord } from "../storage/stored-record.js";
import { encodeBson } from "../wire/bson-codec.js";
import { MAX_BSON_OBJECT_SIZE } from "../wire/wire-constants.js";
import { CursorBatch } from "./cursor-batch.js";
import type { CursorItem, ServerCursor } from "./server-cursor.js";

/** Default number of documents in a first batch when the client gives no `batchSize`. */
export const DEFAULT_FIRST_BATCH_SIZE = 101;

export interface CursorRegistryOptions {
  /** A cursor unused for this long is closed (MongoDB's `cursorTimeoutMillis`, 10 minutes). */
  readonly idleTimeoutMs: number;
  readonly now?: () => number;
}

/** Input for opening a cursor; the registry decides whether it stays open after the first batch. */
export type CursorInit = Omit<ServerCursor, "id" | "lastUsed" | "remaining" | "pending"> & {
  readonly limit?: number | undefined;
  readonly batchSize?: number | undefined;
  readonly singleBatch?: boolean | undefined;
};

/**
 * The server's open cursors. `open` produces the first batch and keeps the cursor only if more
 * results remain; `getMore` continues it. Batches stop at `batchSize` documents or 16 MiB of
 * documents (at least one document always goes out). Idle cursors are reaped by `sweep()`
 * (called from a timer) and also treated as gone on access, so timeouts are exact in tests.
 *
 * @example
 * const reply = registry.open({ns, source, batchSize: 2});           // firstBatch, id
 * registry.getMore(reply.id, ns, undefined);                         // nextBatch
 */
export class CursorRegistry {
  private readonly cursors = new Map<string, ServerCursor>();
  private readonly now: () => number;

  constructor(private readonly options: CursorRegistryOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.cursors.size;
  }

  /** Produces the first batch; registers the cursor when results remain. */
  open(init: CursorInit): CursorBatch {
    const limit = init.limit;
    // Every field spelled out, in one order: a stable object shape keeps the per-document
    // batching loop on fast property access (spreads produced slow dictionary-mode objects).
    const cursor: ServerCursor = {
      id: Long.ZERO,
      ns: init.ns,
      source: init.source,
      transform: init.transform,
      remaining: limit !== undefined && limit > 0 ? limit : Infinity,
      pending: undefined,
      lastUsed: this.now(),
      sessionKey: init.sessionKey,
      collection: init.collection,
      noTimeout: init.noTimeout,
      onClose: init.onClose,
    };
    const { docs, bytes, exhausted } = fillBatch(cursor, init.batchSize ?? DEFAULT_FIRST_BATCH_SIZE);
    if (exhausted || init.singleBatch) {
      cursor.onClose?.();
      return new CursorBatch("firstBatch", docs, bytes, Long.ZERO, cursor.ns);
    }
    cursor.id = newCursorId(this.cursors);
    this.cursors.set(cursor.id.toString(), cursor);
    return new CursorBatch("firstBatch", docs, bytes, cursor.id, cursor.ns);
  }

  /** Continues a cursor. CursorNotFound (43) if unknown, killed or timed out. */
  getMore(id: Long, ns: string, batchSize: number | undefined): CursorBatch {
    const cursor = this.lookup(id);
    if (cursor.ns !== ns) {
      throw new EngineError(
        ErrorCodes.Unauthorized,
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    cursor.lastUsed = this.now();
    const { docs, bytes, exhausted } = fillBatch(cursor, batchSize && batchSize > 0 ? batchSize : Infinity);
    if (exhausted) {
      this.close(cursor);
      return new CursorBatch("nextBatch", docs, bytes, Long.ZERO, ns);
    }
    return new CursorBatch("nextBatch", docs, bytes, cursor.id, ns);
  }

  /** The live cursor with this id; throws CursorNotFound otherwise. */
  lookup(id: Long): ServerCursor {
    const cursor = this.cursors.get(id.toString());
    if (!cursor || this.idle(cursor, this.now())) {
      if (cursor) this.close(cursor);
      throw new EngineError(ErrorCodes.CursorNotFound, `cursor id ${id.toString()} not found`);
    }
    return cursor;
  }

  /** Kills a cursor; returns whether it existed (killCursors' `cursorsKilled` vs `NotFound`). */
  kill(id: Long): boolean {
    const cursor = this.cursors.get(id.toString());
    if (!cursor) return false;
    this.close(cursor);
    return true;
  }

  /** Kills every cursor opened under a session (`endSessions`). */
  killSession(sessionKey: string): void {
    for (const cursor of [...this.cursors.values()]) if (cursor.sessionKey === sessionKey) this.close(cursor);
  }

  /** Closes cursors idle past the timeout; returns how many. */
  sweep(): number {
    const now = this.now();
    let closed = 0;
    for (const cursor of [...this.cursors.values()]) {
      if (this.idle(cursor, now)) {
        this.close(cursor);
        closed += 1;
      }
    }
    return closed;
  }

  closeAll(): void {
    for (const cursor of [...this.cursors.values()]) this.close(cursor);
  }

  private idle(cursor: ServerCursor, now: number): boolean {
    return !cursor.noTimeout && now - cursor.lastUsed > this.options.idleTimeoutMs;
  }

  private close(cursor: ServerCursor): void {
    if (!this.cursors.delete(cursor.id.toString())) return;
    cursor.onClose?.();
    // Let a suspended generator run its `finally` blocks.
    cursor.source.return?.(undefined);
  }
}

/**
 * Pulls documents for one batch: up to `max` documents and 16 MiB of them (the first document
 * always fits, as on a real server). Stored records are serialized once and cached.
 */
function fillBatch(cursor: ServerCursor, max: number): { docs: Document[]; bytes: Buffer[]; exhausted: boolean } {
  const docs: Document[] = [];
  const bytes: Buffer[] = [];
  let size = 0;
  while (docs.length < max && cursor.remaining > 0) {
    let item: CursorItem | undefined = cursor.pending;
    cursor.pending = undefined;
    if (item === undefined) {
      const next = cursor.source.next();
      if (next.done) return { docs, bytes, exhausted: true };
      item = next.value;
    }
    const [doc, encoded] = serializeItem(item, cursor.transform);
    if (docs.length > 0 && size + encoded.length > MAX_BSON_OBJECT_SIZE) {
      cursor.pending = item;
      return { docs, bytes, exhausted: false };
    }
    docs.push(doc);
    bytes.push(encoded);
    size += encoded.length;
    cursor.remaining -= 1;
  }
  if (cursor.remaining <= 0) return { docs, bytes, exhausted: true };
  // With a finite batch, peek so an exactly-drained cursor reports id 0 instead of lingering.
  if (cursor.pending === undefined) {
    const next = cursor.source.next();
    if (next.done) return { docs, bytes, exhausted: true };
    cursor.pending = next.value;
  }
  return { docs, bytes, exhausted: false };
}

function serializeItem(item: CursorItem, transform: ((doc: Document) => Document) | undefined): [Document, Buffer] {
  if (item instanceof StoredRecord) {
    if (transform) {
      const doc = transform(item.doc);
      return [doc, encodeResult(doc)];
    }
    item.bytes ??= encodeResult(item.doc);
    return [item.doc, item.bytes];
  }
  const doc = transform ? transform(item) : item;
  return [doc, encodeResult(doc)];
}

/** Serializes one result document; a computed document over 16 MiB fails like on mongod (10334). */
function encodeResult(doc: Document): Buffer {
  let bytes: Buffer;
  try {
    bytes = encodeBson(doc);
  } catch (error) {
    throw new EngineError(ErrorCodes.BSONObjectTooLarge, `BSONObj size is invalid: a result document could not be serialized (${(error as Error).message})`);
  }
  if (bytes.length > MAX_BSON_OBJECT_SIZE) {
    throw new EngineError(ErrorCodes.BSONObjectTooLarge, `BSONObj size: ${bytes.length} is invalid. Size must be between 0 and ${MAX_BSON_OBJECT_SIZE}(16MB)`);
  }
  return bytes;
}

function newCursorId(existing: Map<string, ServerCursor>): Long {
  for (;;) {
    const bytes = randomBytes(8);
    bytes[7]! &= 0x7f;
    const id = Long.fromBytesLE([...bytes]);
    if (!id.isZero() && !existing.has(id.toString())) return id;
  }
}
