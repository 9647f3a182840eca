import type { ChangeStream, ChangeStreamDocument, Db, Document, ResumeToken, Timestamp } from "mongodb";
import { changeStreamStart, operationTimeNow } from "../../adapters/database/operation-time.js";
import type { SvcLogger } from "../../kernel/logger.js";

/** Why the feed could not vouch for every change: clients must page their streams again. */
export type FeedGap = "history-lost" | "invalidated";

export interface DeltaFeedOptions {
  /** The database of the synced collections (a database-level change stream watches them all). */
  readonly db: Db;
  readonly collections: readonly string[];
  readonly logger: SvcLogger;
  /** First delay before reopening a failed stream; doubles up to 30 s (default 250 ms). */
  readonly retryDelayMs?: number;
  readonly onChange: (change: ChangeStreamDocument<Document>) => void;
  /** Called after the feed reopened without being able to resume (changes may have been missed). */
  readonly onGap: (reason: FeedGap) => void;
  /**
   * Makes the database keep post-images of the watched collections again: run when one of them
   * (or the database) is dropped, since a collection re-created by a plain write has none, and
   * when the stream met a write without one.
   */
  readonly keepPostImages?: () => Promise<void>;
}

/** Server codes meaning the resume token is no longer in the history (or the stream cannot resume). */
const HISTORY_LOST = new Set([286, 280, 136]);
/**
 * NoMatchingDocument: a write of a collection that kept no post-image (re-created after a drop,
 * or turned off). With `fullDocument: "required"` the stream fails on it at every attempt, so
 * resuming would never get past it.
 */
const POST_IMAGE_MISSING = 47;
/** The longest wait between attempts. */
const MAX_DELAY_MS = 30_000;
/** Failed attempts in a row after which the outage is logged again, as an error. */
const STILL_FAILING_AFTER = 10;

/**
 * Follows one change stream over the synced collections and the tombstones, in commit order, with
 * each write's post-image. After any error it reopens from its resume token with exponential
 * backoff — it never stops while started. When it cannot resume (the token fell out of the
 * history, the database was dropped, a write kept no post-image), it reopens from now and reports
 * the gap, so clients can be told to reconcile; post-images lost with a dropped collection are
 * turned on again through `keepPostImages`. An outage is one warning when it starts and one line
 * when the stream reads again; the attempts in between are logged at debug level.
 *
 * @example
 * const feed = new DeltaFeed({ db, collections: ["todos", "svc_sync_tombstones"], logger, onChange, onGap });
 * await feed.start(); // every write committed from now on is reported
 * await feed.stop();
 */
export class DeltaFeed {
  private stream?: ChangeStream<Document>;
  private resumeToken?: ResumeToken;
  /** Where the first stream starts until it has a resume token of its own. */
  private startAt?: Timestamp;
  private running = false;
  private loop?: Promise<void>;
  /** Ends the current backoff wait early (stop() must not wait out a delay of up to 30 s). */
  private wake?: () => void;

  constructor(private readonly options: DeltaFeedOptions) {}

  /**
   * Starts following. With the deployment's operation time the stream opens in the background
   * from that time, so nothing committed after `start()` resolves is missed and the app does not
   * wait for the stream's first server-side wait; without one (no cluster time), it waits for the
   * stream's cursor as before.
   */
  async start(): Promise<void> {
    this.running = true;
    this.startAt = await operationTimeNow(this.options.db).catch(() => undefined);
    if (this.startAt === undefined) {
      const first = await this.open();
      if (first) this.options.onChange(first);
    }
    this.loop = this.follow();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.stream?.close().catch(() => undefined);
    await this.loop;
  }

  /** Opens the stream and waits for its cursor (the first `tryNext` runs the aggregate). */
  private async open(): Promise<ChangeStreamDocument<Document> | null> {
    const pipeline = [{ $match: { "ns.coll": { $in: [...this.options.collections] } } }];
    this.stream = this.options.db.watch(pipeline, {
      fullDocument: "required",
      ...changeStreamStart(this.resumeToken, this.startAt),
    });
    try {
      const first = await this.stream.tryNext();
      this.resumeToken = this.stream.resumeToken ?? this.resumeToken;
      return first;
    } catch (error) {
      await this.stream.close().catch(() => undefined);
      this.stream = undefined;
      throw error;
    }
  }

  private async follow(): Promise<void> {
    const base = this.options.retryDelayMs ?? 250;
    let delay = base;
    let gap: FeedGap | undefined;
    /** Failed attempts since the stream last read: an outage is one incident, however long. */
    let failures = 0;
    /** Whether the last reopening resumed from the token (for the recovery line). */
    let resumed = true;
    /** Post-images must be turned on again before the next read (see `keepPostImages`). */
    let repair = false;
    /** Clears what the stream could only fail on again: it starts from now, and clients are told. */
    const restart = (reason: FeedGap) => {
      this.resumeToken = undefined;
      this.startAt = undefined;
      gap = reason;
    };
    const failed = async (message: string, error: unknown) => {
      failures++;
      if (failures === 1) this.options.logger.warn(`Sync: ${message}; retrying with backoff (further attempts are logged at debug level)`, { reason: describe(error) });
      else this.options.logger.debug(`Sync: ${message}`, { reason: describe(error), attempt: failures, retryInMs: delay });
      // A long outage is said once more, louder (about 1.5 min into it at the default delays):
      // no delta is flowing, and the debug lines may not be kept.
      if (failures === STILL_FAILING_AFTER) {
        this.options.logger.error("Sync: the change stream is still failing; no deltas are sent until it recovers", { reason: describe(error), attempts: failures });
      }
      await this.pause(delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    };
    while (this.running) {
      if (!this.stream) {
        try {
          if (repair) await this.options.keepPostImages?.();
          repair = false;
          // stop() may have come while post-images were being turned on: open nothing it would not close.
          if (!this.running) return;
          const first = await this.open();
          resumed = gap === undefined;
          if (gap) this.options.onGap(gap);
          gap = undefined;
          if (first) this.handle(first);
        } catch (error) {
          if (!this.running) return;
          if (isHistoryLost(error) && (this.resumeToken || this.startAt)) restart("history-lost");
          if (codeOf(error) === POST_IMAGE_MISSING) {
            restart("invalidated");
            repair = true;
          }
          await failed("could not reopen the change stream yet", error);
        }
        continue;
      }
      try {
        const change = await this.stream.tryNext();
        this.resumeToken = this.stream.resumeToken ?? this.resumeToken;
        // The backoff and the incident end only once the stream reads again: a reopened stream
        // whose next getMore fails at once is the same outage, not a new one every 250 ms.
        if (failures > 0) {
          this.options.logger.info("Sync: change stream reopened", { resumed, failedAttempts: failures });
          failures = 0;
          delay = base;
        }
        if (change?.operationType === "invalidate" || change?.operationType === "dropDatabase") {
          // The stream ends here and cannot resume past it: start from now and say so.
          restart("invalidated");
          repair = true;
          await this.closeStream();
          continue;
        }
        if (change) this.handle(change);
        // The next write re-creates the collection without post-images: keep them again now,
        // before an update of it would stop the stream.
        if (change?.operationType === "drop") await this.keepPostImages();
      } catch (error) {
        if (!this.running) return;
        if (isHistoryLost(error)) restart("history-lost");
        if (codeOf(error) === POST_IMAGE_MISSING) {
          restart("invalidated");
          repair = true;
        }
        await this.closeStream();
        await failed("change stream failed, reopening", error);
      }
    }
  }

  /** `keepPostImages` while the stream reads on; a failure is logged, and the stream's own failure repairs later. */
  private async keepPostImages(): Promise<void> {
    try {
      await this.options.keepPostImages?.();
    } catch (error) {
      this.options.logger.warn("Sync: could not keep post-images of a re-created collection", { reason: describe(error) });
    }
  }

  /** Waits `ms` before the next attempt, or until stop(); the timer is cleared either way. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private handle(change: ChangeStreamDocument<Document>): void {
    try {
      this.options.onChange(change);
    } catch (error) {
      // A delta that cannot be sent must not stop the feed for every other stream.
      this.options.logger.error("Sync: a change could not be turned into a delta", { reason: describe(error) });
    }
  }

  private async closeStream(): Promise<void> {
    await this.stream?.close().catch(() => undefined);
    this.stream = undefined;
  }
}

function isHistoryLost(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && HISTORY_LOST.has(code);
}

function codeOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
