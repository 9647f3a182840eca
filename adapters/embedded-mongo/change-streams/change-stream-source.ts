import type { Document, Timestamp } from "bson";
import type { CompiledPipeline } from "../query/index.js";
import { bsonIdentical } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { TailableSource } from "../cursors/tailable-source.js";
import type { Oplog } from "../storage/oplog.js";
import type { OplogEntry } from "../storage/write-ops.js";
import { missingImageOf, type ChangeEventBuilder } from "./change-event.js";
import { encodeResumeToken, nextTimestamp } from "./resume-token.js";
import { nonResumableError } from "./non-resumable-error.js";

/** Where a stream starts reading (see `resolveStartPosition`). */
export interface StartPosition {
  /** `ts` of the last oplog entry already accounted for: reading resumes strictly after it. */
  readonly after: Timestamp;
  /** Events owed before reading on (the invalidate of a drop the stream resumed after). */
  readonly owed?: readonly Document[];
  /** The token standing for this start (default: a high-water mark just past `after`). */
  readonly token?: Document;
}

/**
 * One change stream's reading state, the `TailableSource` behind its cursor. It walks the oplog
 * from its position, turns entries into events (`ChangeEventBuilder`), runs the user's stages on
 * each, and queues what survives; the cursor takes events one by one. Positions only move
 * forward, so a resume token always means "everything up to here was delivered":
 * - `postBatchResumeToken` is the last delivered event's token while events are queued,
 *   otherwise a high-water mark just past the last entry read (an empty batch still advances);
 * - an invalidating entry ends the stream after its invalidate event — even when the user's
 *   `$match` drops that event, as on mongod.
 * Falling behind the bounded history (entries trimmed before they were read) fails the read
 * with ChangeStreamHistoryLost (286).
 *
 * @example
 * const source = new ChangeStreamSource(oplog, builder, pipeline, {after: clock.current()});
 * registry.openTailable({ns, tailable: source});
 */
export class ChangeStreamSource implements TailableSource {
  private position: Timestamp;
  private readonly queue: Document[] = [];
  /** Read-ahead of the oplog: entries after `position`, complete commit batches. */
  private window: OplogEntry[] = [];
  private windowIndex = 0;
  private previousEntry: OplogEntry | undefined;
  /** Token of the last event handed to the client (at first: the start's token). */
  private lastDelivered: Document;
  /** Set once an invalidating entry was read: the stream ends when the queue drains. */
  private endToken: Document | undefined;

  constructor(
    private readonly oplog: Oplog,
    private readonly builder: ChangeEventBuilder,
    private readonly pipeline: CompiledPipeline | undefined,
    start: StartPosition,
  ) {
    this.position = start.after;
    this.lastDelivered = start.token ?? encodeResumeToken({ kind: "highWaterMark", ts: nextTimestamp(start.after), txnOpIndex: 0 });
    for (const event of start.owed ?? []) {
      if (event["operationType"] === "invalidate") this.endToken = event["_id"] as Document;
      this.enqueue(event);
    }
  }

  peek(): Document | undefined {
    if (this.queue.length === 0 && this.endToken === undefined) this.read();
    return this.queue[0];
  }

  consume(): void {
    const event = this.queue.shift();
    if (event) this.lastDelivered = event["_id"] as Document;
  }

  get exhausted(): boolean {
    return this.endToken !== undefined && this.queue.length === 0;
  }

  batchFields(): Document {
    return { postBatchResumeToken: this.resumeToken() };
  }

  onChange(listener: () => void): () => void {
    return this.oplog.subscribe(listener);
  }

  /** The token a client holding every delivered event resumes from. */
  private resumeToken(): Document {
    if (this.queue.length > 0) return this.lastDelivered;
    if (this.endToken && this.queue.length === 0) return this.endToken;
    return encodeResumeToken({ kind: "highWaterMark", ts: nextTimestamp(this.position), txnOpIndex: 0 });
  }

  /** Reads entries until at least one event is queued, the oplog is caught up, or the stream ends. */
  private read(): void {
    while (this.queue.length === 0 && this.endToken === undefined) {
      if (this.windowIndex >= this.window.length && !this.refill()) return;
      const entry = this.window[this.windowIndex]!;
      const next = this.window[this.windowIndex + 1];
      const { events, invalidates } = this.builder.eventsFor(entry, this.previousEntry, next);
      // Advance first: an error in the user's stages must not replay this entry forever.
      this.windowIndex += 1;
      this.previousEntry = entry;
      this.position = entry.ts;
      for (const event of events) {
        if (invalidates && event["operationType"] === "invalidate") this.endToken = event["_id"] as Document;
        this.enqueue(event);
      }
    }
  }

  /** Loads the entries committed after `position`; false when there are none. */
  private refill(): boolean {
    const trimmed = this.oplog.trimmedThrough();
    if (trimmed && trimmed.compare(this.position) > 0) {
      throw nonResumableError(
        ErrorCodes.ChangeStreamHistoryLost,
        "Resume of change stream was not possible, as the resume point may no longer be in the oplog.",
      );
    }
    this.window = this.oplog.after(this.position);
    this.windowIndex = 0;
    return this.window.length > 0;
  }

  /** Runs the user's stages on one event; queues the result (if any). */
  private enqueue(event: Document): void {
    const missingImage = missingImageOf(event);
    if (!this.pipeline) {
      if (missingImage) throw missingImage();
      this.queue.push(event);
      return;
    }
    const [result] = this.pipeline.run([event], { resolveCollection: () => [] }).results;
    if (result === undefined) return;
    if (missingImage) throw missingImage();
    if (!bsonIdentical(result["_id"], event["_id"])) {
      throw nonResumableError(
        ErrorCodes.ChangeStreamFatalError,
        "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. " +
          "Modifying the _id field of an event makes it impossible to resume the stream from that point. " +
          "Only transformations that retain the unmodified _id field are allowed.",
      );
    }
    this.queue.push(result);
  }
}
