import { randomBytes } from "node:crypto";
import { Long } from "bson";
import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { StoredRecord } from "../storage/stored-record.js";
import { encodeBson } from "../wire/bson-codec.js";
import { MAX_BSON_OBJECT_SIZE } from "../wire/wire-constants.js";
import { CursorBatch } from "./cursor-batch.js";
import type { CursorItem, CursorWait, ServerCursor } from "./server-cursor.js";
import type { TailableSource } from "./tailable-source.js";
import type { ConnectionInfo } from "../commands/command-context.js";

/** Default number of documents in a first batch when the client gives no `batchSize`. */
export const DEFAULT_FIRST_BATCH_SIZE = 101;

export interface CursorRegistryOptions {
  /** A cursor unused for this long is closed (MongoDB's `cursorTimeoutMillis`, 10 minutes). */
  readonly idleTimeoutMs: number;
  readonly now?: () => number;
}

/** Fields the registry maintains itself. */
type RegistryFields = "id" | "lastUsed" | "remaining" | "pending" | "createdAt" | "nDocsReturned" | "nBatchesReturned" | "waiting" | "tailable";

/** Input for opening a cursor; the registry decides whether it stays open after the first batch. */
export type CursorInit = Omit<ServerCursor, RegistryFields> & {
  readonly limit?: number | undefined;
  readonly batchSize?: number | undefined;
  readonly singleBatch?: boolean | undefined;
};

/** Input for opening a tailable awaitData cursor (a change stream). */
export interface TailableCursorInit {
  readonly ns: string;
  readonly tailable: TailableSource;
  readonly batchSize?: number | undefined;
  readonly sessionKey?: string | undefined;
  readonly lsid?: Document | undefined;
  readonly originatingCommand?: Document | undefined;
}

/** The `getMore` that waits: shown by `$currentOp` while it is blocked. */
export interface AwaitingOperation {
  readonly command: Document;
  readonly connection: ConnectionInfo;
}

/** A registered cursor as `$currentOp` reports it (see `describeCursors`). */
export interface CursorDescription {
  readonly id: Long;
  readonly ns: string;
  readonly createdAt: Date;
  readonly lastAccessAt: Date;
  readonly nDocsReturned: number;
  readonly nBatchesReturned: number;
  readonly noCursorTimeout: boolean;
  readonly tailable: boolean;
  readonly lsid: Document | undefined;
  readonly originatingCommand: Document | undefined;
  /** The `getMore` currently blocked on the cursor, if any. */
  readonly waiting: Omit<CursorWait, "cancel"> | undefined;
}

const EMPTY_SOURCE: Iterator<CursorItem, unknown, undefined> = { next: () => ({ done: true, value: undefined }) };

/**
 * The server's open cursors. `open` produces the first batch and keeps the cursor only if more
 * results remain; `getMore` continues it. Batches stop at `batchSize` documents or 16 MiB of
 * documents (at least one document always goes out). Idle cursors are reaped by `sweep()`
 * (called from a timer) and also treated as gone on access, so timeouts are exact in tests.
 * Tailable awaitData cursors (change streams: `openTailable`/`awaitMore`) stay open while their
 * source lives and let a `getMore` wait for data; a cursor being waited on is never idle.
 *
 * @example
 * const reply = registry.open({ns, source, batchSize: 2});           // firstBatch, id
 * registry.getMore(reply.id, ns, undefined);                         // nextBatch
 * const stream = registry.openTailable({ns, tailable: changeStreamSource});
 * await registry.awaitMore(stream.id, ns, undefined, 1000, {command, connection}); // waits ≤ 1 s
 */
export class CursorRegistry {
  private readonly cursors = new Map<string, ServerCursor>();
  private readonly now: () => number;
  private nextOpId = 1;

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
      tailable: undefined,
      originatingCommand: init.originatingCommand,
      lsid: init.lsid,
      createdAt: this.now(),
      nDocsReturned: 0,
      nBatchesReturned: 0,
      waiting: undefined,
    };
    const { docs, bytes, exhausted } = fillBatch(cursor, init.batchSize ?? DEFAULT_FIRST_BATCH_SIZE);
    if (exhausted || init.singleBatch) {
      cursor.onClose?.();
      return new CursorBatch("firstBatch", docs, bytes, Long.ZERO, cursor.ns);
    }
    cursor.id = newCursorId(this.cursors);
    cursor.nDocsReturned = docs.length;
    cursor.nBatchesReturned = 1;
    this.cursors.set(cursor.id.toString(), cursor);
    return new CursorBatch("firstBatch", docs, bytes, cursor.id, cursor.ns);
  }

  /**
   * Opens a tailable awaitData cursor: the first batch holds what the source has now (the
   * aggregate never waits); the cursor stays registered until the source is exhausted.
   */
  openTailable(init: TailableCursorInit): CursorBatch {
    const cursor: ServerCursor = {
      id: Long.ZERO,
      ns: init.ns,
      source: EMPTY_SOURCE,
      transform: undefined,
      remaining: Infinity,
      pending: undefined,
      lastUsed: this.now(),
      sessionKey: init.sessionKey,
      collection: undefined,
      noTimeout: undefined,
      onClose: undefined,
      tailable: init.tailable,
      originatingCommand: init.originatingCommand,
      lsid: init.lsid,
      createdAt: this.now(),
      nDocsReturned: 0,
      nBatchesReturned: 0,
      waiting: undefined,
    };
    const { docs, bytes, exhausted } = fillTailableBatch(init.tailable, init.batchSize ?? DEFAULT_FIRST_BATCH_SIZE);
    const extra = init.tailable.batchFields();
    if (exhausted) return new CursorBatch("firstBatch", docs, bytes, Long.ZERO, cursor.ns, extra);
    cursor.id = newCursorId(this.cursors);
    cursor.nDocsReturned = docs.length;
    cursor.nBatchesReturned = 1;
    this.cursors.set(cursor.id.toString(), cursor);
    return new CursorBatch("firstBatch", docs, bytes, cursor.id, cursor.ns, extra);
  }

  /**
   * `getMore` on a tailable awaitData cursor: returns what is available; when nothing is, waits
   * until the source signals new data or `maxAwaitMs` passes, and returns then (possibly an empty
   * batch — still with the source's batch fields). A cursor killed during the wait answers
   * CursorNotFound (43), which drivers treat as resumable. Non-tailable cursors: see `getMore`.
   */
  async awaitMore(id: Long, ns: string, batchSize: number | undefined, maxAwaitMs: number, operation: AwaitingOperation): Promise<CursorBatch> {
    const cursor = this.lookupForGetMore(id, ns);
    const source = cursor.tailable;
    if (!source) return this.getMore(id, ns, batchSize);
    if (cursor.waiting) {
      throw new EngineError(ErrorCodes.CursorInUse, `cursor id ${id.toString()} is already in use`);
    }
    cursor.lastUsed = this.now();
    if (this.peekOrKill(cursor, source) === undefined && !source.exhausted && maxAwaitMs > 0) {
      await this.waitForData(cursor, source, maxAwaitMs, operation);
      if (this.cursors.get(id.toString()) !== cursor) {
        throw new EngineError(ErrorCodes.CursorNotFound, `cursor id ${id.toString()} not found (killed while awaiting data)`);
      }
    }
    return this.tailableGetMoreNow(cursor, ns, batchSize);
  }

  /** Every registered cursor, for `$currentOp` (idle ones and those a `getMore` waits on). */
  describeCursors(): CursorDescription[] {
    const now = this.now();
    const out: CursorDescription[] = [];
    for (const cursor of [...this.cursors.values()]) {
      if (this.idle(cursor, now)) continue;
      const wait = cursor.waiting;
      out.push({
        id: cursor.id,
        ns: cursor.ns,
        createdAt: new Date(cursor.createdAt),
        lastAccessAt: new Date(cursor.lastUsed),
        nDocsReturned: cursor.nDocsReturned,
        nBatchesReturned: cursor.nBatchesReturned,
        noCursorTimeout: cursor.noTimeout === true,
        tailable: cursor.tailable !== undefined,
        lsid: cursor.lsid,
        originatingCommand: cursor.originatingCommand,
        waiting: wait ? { opId: wait.opId, command: wait.command, connection: wait.connection, startedAt: wait.startedAt } : undefined,
      });
    }
    return out;
  }

  /**
   * Waits until the source has a document (or is exhausted), `ms` pass, or the cursor is killed.
   * Wake-ups only set a flag (they arrive inside other commands' commits); the source is read
   * here, where an error belongs to this `getMore`.
   */
  private async waitForData(cursor: ServerCursor, source: TailableSource, ms: number, operation: AwaitingOperation): Promise<void> {
    let changed = false;
    let over = false;
    let wake: (() => void) | undefined;
    const unsubscribe = source.onChange(() => {
      changed = true;
      wake?.();
    });
    const end = (): void => {
      over = true;
      wake?.();
    };
    const timer = setTimeout(end, ms);
    cursor.waiting = { opId: this.nextOpId++, command: operation.command, connection: operation.connection, startedAt: this.now(), cancel: end };
    try {
      while (!over) {
        if (!changed) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        if (over) break;
        changed = false;
        if (this.peekOrKill(cursor, source) !== undefined || source.exhausted) break;
      }
    } finally {
      clearTimeout(timer);
      unsubscribe();
      cursor.waiting = undefined;
    }
  }

  /**
   * Continues a cursor. CursorNotFound (43) if unknown, killed or timed out. A tailable cursor is
   * served without waiting (use `awaitMore` to wait for data).
   */
  getMore(id: Long, ns: string, batchSize: number | undefined): CursorBatch {
    const cursor = this.lookupForGetMore(id, ns);
    if (cursor.waiting) {
      throw new EngineError(ErrorCodes.CursorInUse, `cursor id ${id.toString()} is already in use`);
    }
    if (cursor.tailable) return this.tailableGetMoreNow(cursor, ns, batchSize);
    cursor.lastUsed = this.now();
    const { docs, bytes, exhausted } = fillBatch(cursor, batchSize && batchSize > 0 ? batchSize : Infinity);
    cursor.nDocsReturned += docs.length;
    cursor.nBatchesReturned += 1;
    if (exhausted) {
      this.close(cursor);
      return new CursorBatch("nextBatch", docs, bytes, Long.ZERO, ns);
    }
    return new CursorBatch("nextBatch", docs, bytes, cursor.id, ns);
  }

  private tailableGetMoreNow(cursor: ServerCursor, ns: string, batchSize: number | undefined): CursorBatch {
    const source = cursor.tailable!;
    let filled: ReturnType<typeof fillTailableBatch>;
    try {
      filled = fillTailableBatch(source, batchSize && batchSize > 0 ? batchSize : Infinity);
    } catch (error) {
      // Like mongod: a getMore that fails kills its cursor (the driver then resumes or gives up).
      this.close(cursor);
      throw error;
    }
    const { docs, bytes, exhausted } = filled;
    const extra = source.batchFields();
    cursor.lastUsed = this.now();
    cursor.nDocsReturned += docs.length;
    cursor.nBatchesReturned += 1;
    if (exhausted) {
      this.close(cursor);
      return new CursorBatch("nextBatch", docs, bytes, Long.ZERO, ns, extra);
    }
    return new CursorBatch("nextBatch", docs, bytes, cursor.id, ns, extra);
  }

  private peekOrKill(cursor: ServerCursor, source: TailableSource): unknown {
    try {
      return source.peek();
    } catch (error) {
      this.close(cursor);
      throw error;
    }
  }

  private lookupForGetMore(id: Long, ns: string): ServerCursor {
    const cursor = this.lookup(id);
    if (cursor.ns !== ns) {
      throw new EngineError(
        ErrorCodes.Unauthorized,
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    return cursor;
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
    // A cursor a getMore is waiting on is in use, however long the client asked to wait.
    return !cursor.noTimeout && cursor.waiting === undefined && now - cursor.lastUsed > this.options.idleTimeoutMs;
  }

  private close(cursor: ServerCursor): void {
    if (!this.cursors.delete(cursor.id.toString())) return;
    cursor.waiting?.cancel();
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

/**
 * Takes available documents from a tailable source: up to `max` and 16 MiB (the first always
 * goes). A document is consumed only once it is in the batch.
 */
function fillTailableBatch(source: TailableSource, max: number): { docs: Document[]; bytes: Buffer[]; exhausted: boolean } {
  const docs: Document[] = [];
  const bytes: Buffer[] = [];
  let size = 0;
  while (docs.length < max) {
    const doc = source.peek();
    if (doc === undefined) break;
    const encoded = encodeResult(doc);
    if (docs.length > 0 && size + encoded.length > MAX_BSON_OBJECT_SIZE) break;
    source.consume();
    docs.push(doc);
    bytes.push(encoded);
    size += encoded.length;
  }
  return { docs, bytes, exhausted: source.exhausted };
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
