import { serialize } from "bson";
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { JournalError, JournalErrorCodes } from "./journal-error.js";
import { segmentPath, syncDirectory } from "./journal-files.js";
import type { ResolvedJournalOptions } from "./journal-options.js";
import { encodeRecord } from "./record-framing.js";

/** Counters of a journal writer (the bench reports records per fsync from them). */
export interface JournalWriterStats {
  /** Records appended (one per committed batch). */
  records: number;
  /** Bytes written to segments (headers included). */
  bytes: number;
  /** `write` system calls (each carries every record queued since the previous one). */
  writes: number;
  /** `fdatasync` calls. */
  syncs: number;
}

interface Waiter {
  readonly sequence: number;
  readonly durable: boolean;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

interface Rotation {
  readonly generation: number;
  readonly done: () => void;
}

/**
 * The first record of every segment: identifies the format and which generation the file is.
 *
 * @example
 * segmentHeader(3); // record whose payload is {svcJournal: 1, generation: 3}
 */
export function segmentHeader(generation: number): Buffer {
  return encodeRecord([serialize({ svcJournal: 1, generation })]);
}

/**
 * Appends framed records to the current journal segment and makes them durable, with group
 * commit: `append` only queues (it runs inside `Storage.commit`, synchronously); a single
 * write loop takes *everything* queued, writes it with one `write` and one `fdatasync`, and
 * settles every `flush()` waiting on those records. Commands that commit while an fsync is in
 * flight therefore share the next one, so throughput grows with concurrency instead of being
 * capped at one fsync per write.
 *
 * Any I/O failure is permanent: the segment's state on disk is unknown, so every later `flush`
 * rejects (writes are refused) until the engine is restarted and recovers from the files.
 *
 * @example
 * const writer = await JournalWriter.open(dir, 1, options);
 * writer.append(encodeRecord([serialize(entry)]));
 * await writer.flush(); // durable now
 */
export class JournalWriter {
  readonly stats: JournalWriterStats = { records: 0, bytes: 0, writes: 0, syncs: 0 };
  /** Bytes in the current segment. */
  segmentBytes: number;
  private queue: Array<Buffer | Rotation> = [];
  private appended = 0;
  private written = 0;
  private synced = 0;
  private waiters: Waiter[] = [];
  private running: Promise<void> | undefined;
  private scheduled = false;
  private syncRequested = false;
  private failure: JournalError | undefined;
  private closed = false;
  private readonly timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly directory: string,
    private handle: FileHandle,
    /** Generation of the segment being appended to. */
    public generation: number,
    size: number,
    private readonly options: ResolvedJournalOptions,
    /** Called after a write pass leaves the segment at or above `compactAfterBytes`. */
    private readonly onSegmentFull: () => void,
  ) {
    this.segmentBytes = size;
    if (options.fsync === "interval") {
      this.timer = setInterval(() => {
        if (this.synced < this.written || this.queue.length > 0) {
          this.syncRequested = true;
          this.kick();
        }
      }, options.fsyncIntervalMs).unref();
    }
  }

  /**
   * Opens segment `generation` for appending (creating it, with its header, when it does not
   * exist or is empty).
   */
  static async open(
    directory: string,
    generation: number,
    options: ResolvedJournalOptions,
    onSegmentFull: () => void = () => {},
  ): Promise<JournalWriter> {
    const { handle, size } = await openSegment(directory, generation);
    return new JournalWriter(directory, handle, generation, size, options, onSegmentFull);
  }

  /** True once a write or fsync failed (every later flush rejects). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Queues one record (never throws: it runs inside a commit whose effects already happened). */
  append(record: Buffer): void {
    // After a failure nothing more can be made durable (every flush rejects): do not pile up.
    if (this.closed || this.failure) return;
    this.queue.push(record);
    this.appended += 1;
    this.stats.records += 1;
    // Background commits (TTL deletes) have nobody calling flush: write them soon anyway.
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.kick();
      });
    }
  }

  /**
   * Resolves once every record appended before the call is written — and fsynced, with
   * `fsync: "always"`. Rejects if the journal failed.
   */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const durable = this.options.fsync === "always";
    const sequence = this.appended;
    if ((durable ? this.synced : this.written) >= sequence && this.options.groupCommit) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ sequence, durable, resolve, reject });
      this.kick();
    });
  }

  /**
   * Ends the current segment after every record queued so far and continues in segment
   * `generation`: the old one is fsynced, the new one created with its header and fsynced, and
   * the directory fsynced, before the promise resolves. Records appended after this call go to
   * the new segment.
   */
  rotate(generation: number): Promise<void> {
    // A failed writer never runs its loop again: the rotation would wait forever.
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve) => {
      this.queue.push({ generation, done: resolve });
      this.kick();
    }).then(() => {
      if (this.failure) throw this.failure;
    });
  }

  /** Writes and fsyncs everything queued, then closes the segment. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.syncRequested = true;
    await this.flushDurably().catch(() => {});
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.handle.close();
    if (this.failure) throw this.failure;
  }

  /** Waits until everything queued is written and fsynced, whatever the fsync mode. */
  flushDurably(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.synced >= this.appended && this.queue.length === 0) return Promise.resolve();
    this.syncRequested = true;
    return new Promise((resolve, reject) => {
      this.waiters.push({ sequence: this.appended, durable: true, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.running || this.closed) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (!this.failure && (this.queue.length > 0 || this.waiters.length > 0)) this.kick();
    });
  }

  /** The write loop: one pass per round of queued records, until nothing is waiting. */
  private async run(): Promise<void> {
    while (!this.failure) {
      const mustSync =
        this.syncRequested || this.waiters.some((waiter) => waiter.durable && waiter.sequence > this.synced) || !this.options.groupCommit;
      if (this.queue.length === 0 && this.waiters.length === 0 && !(this.syncRequested && this.synced < this.written)) return;
      const items = this.queue;
      this.queue = [];
      const upTo = this.appended;
      try {
        let pending: Buffer[] = [];
        let sequence = this.written;
        for (const item of items) {
          if (Buffer.isBuffer(item)) {
            pending.push(item);
            sequence += 1;
            continue;
          }
          await this.write(pending);
          pending = [];
          // Everything before the rotation is in the old segment, which switchTo fsyncs.
          await this.switchTo(item.generation);
          this.written = this.synced = sequence;
          item.done();
        }
        await this.write(pending);
        this.written = upTo;
        if (mustSync || this.options.fsync === "always") {
          this.syncRequested = false;
          await this.handle.datasync();
          this.stats.syncs += 1;
          this.synced = upTo;
        }
      } catch (error) {
        this.fail(error, items);
        return;
      }
      this.settle();
      if (this.segmentBytes >= this.options.compactAfterBytes) this.onSegmentFull();
    }
  }

  private settle(): void {
    const remaining: Waiter[] = [];
    let served = 0;
    for (const waiter of this.waiters) {
      const done = (waiter.durable ? this.synced : this.written) >= waiter.sequence;
      // Without group commit every waiter pays for its own pass (write + fsync).
      if (done && (this.options.groupCommit || served === 0)) {
        served += 1;
        waiter.resolve();
      } else {
        remaining.push(waiter);
      }
    }
    this.waiters = remaining;
  }

  private async write(buffers: Buffer[]): Promise<void> {
    if (buffers.length === 0) return;
    const bytes = buffers.length === 1 ? buffers[0]! : Buffer.concat(buffers);
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done);
      done += bytesWritten;
    }
    this.stats.writes += 1;
    this.stats.bytes += bytes.length;
    this.segmentBytes += bytes.length;
  }

  private async switchTo(generation: number): Promise<void> {
    await this.handle.datasync();
    this.stats.syncs += 1;
    await this.handle.close();
    // From here on, a failure is about the new segment (and there is no old handle to close).
    this.generation = generation;
    this.segmentBytes = 0;
    const { handle, size } = await openSegment(this.directory, generation);
    this.handle = handle;
    this.segmentBytes = size;
  }

  /**
   * Fails the journal from outside the write loop (a committed batch could not be encoded):
   * what is in memory can no longer be made durable, so no later write may be acknowledged.
   */
  failWith(error: unknown): void {
    if (!this.failure) this.fail(error, []);
  }

  private fail(error: unknown, items: Array<Buffer | Rotation>): void {
    this.failure = new JournalError(
      JournalErrorCodes.WriteFailed,
      `journal write to ${segmentPath(this.directory, this.generation)} failed: ${(error as Error).message}; writes are refused until restart`,
      segmentPath(this.directory, this.generation),
      undefined,
      { cause: error },
    );
    for (const waiter of this.waiters) waiter.reject(this.failure);
    this.waiters = [];
    for (const item of [...items, ...this.queue]) if (!Buffer.isBuffer(item)) item.done();
    this.queue = [];
  }
}

/** Opens (creating if needed) a segment for appending; an empty one gets its header first. */
async function openSegment(directory: string, generation: number): Promise<{ handle: FileHandle; size: number }> {
  const handle = await open(segmentPath(directory, generation), "a");
  try {
    let { size } = await handle.stat();
    if (size === 0) {
      const header = segmentHeader(generation);
      await handle.write(header, 0, header.length);
      await handle.datasync();
      await syncDirectory(directory);
      size = header.length;
    }
    return { handle, size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
