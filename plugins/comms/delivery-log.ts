import type { Types } from "mongoose";
import type { ErrorTracker } from "../../contracts/error-tracker.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { CommsMessageFields, CommsMessageModel } from "./comms-message-model.js";

/** A row as the service hands it over: its id chosen up front (hooks see it before the write). */
export type DeliveryLogRow = CommsMessageFields & { _id: Types.ObjectId };

/** Rows waiting beyond this make the next send wait for the write (backpressure). */
const MAX_PENDING = 500;

/**
 * Writes delivery-log rows off the send path: rows queue up and go to the database in one
 * `insertMany` per tick, so a send costs no database round trip of its own (bench/comms.ts
 * measures it). When the database falls behind, sends wait for the write in progress rather than
 * queueing without bound. A failed write is logged and never changes a send's result.
 *
 * @example
 * log.add(row);
 * await log.flush(); // before reading the rows back, and on stop
 */
export class DeliveryLog {
  private pending: DeliveryLogRow[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;

  constructor(
    private readonly model: CommsMessageModel,
    private readonly logger: SvcLogger,
    private readonly errorTracker?: ErrorTracker,
  ) {}

  /**
   * Queues a row; resolves at once unless too many rows are waiting, and then once the write in
   * progress (or, with none, the one taking these rows) ends. Not `flush()`: under a steady
   * stream of sends the queue is never empty, so a send waiting for that waited until the stream
   * stopped.
   */
  add(row: DeliveryLogRow): Promise<void> | undefined {
    this.pending.push(row);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.write());
    }
    return this.pending.length > MAX_PENDING ? (this.writing ?? this.write()) : undefined;
  }

  /** Resolves once every row queued so far is written (or its write failed and was logged). */
  async flush(): Promise<void> {
    while (this.pending.length > 0 || this.writing) {
      if (this.writing) await this.writing;
      else await this.write();
    }
  }

  private write(): Promise<void> {
    this.scheduled = false;
    if (this.writing) return this.writing;
    if (this.pending.length === 0) return Promise.resolve();
    const rows = this.pending;
    this.pending = [];
    // Rows are built by the service from checked values, so the write skips mongoose's per-document work.
    this.writing = this.model
      .insertMany(rows, { ordered: false, lean: true })
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.error(`Comms delivery log: ${rows.length} row(s) not written: ${error instanceof Error ? error.message : String(error)}`);
          this.errorTracker?.captureException(error, { tags: { comms: "delivery log" } });
        },
      )
      .finally(() => {
        this.writing = undefined;
        if (this.pending.length > 0 && !this.scheduled) {
          this.scheduled = true;
          setImmediate(() => void this.write());
        }
      });
    return this.writing;
  }
}
