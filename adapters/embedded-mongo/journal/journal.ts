import { unlink } from "node:fs/promises";
import path from "node:path";
import type { EngineLogger } from "../engine-logger.js";
import type { Storage } from "../storage/storage.js";
import type { OplogEntry } from "../storage/write-ops.js";
import { encodeEntry } from "./entry-codec.js";
import { listDataFiles, segmentPath, snapshotPath, syncDirectory } from "./journal-files.js";
import { resolveJournalOptions } from "./journal-options.js";
import type { JournalOptions, ResolvedJournalOptions } from "./journal-options.js";
import { JournalWriter } from "./journal-writer.js";
import type { JournalWriterStats } from "./journal-writer.js";
import { encodeRecord } from "./record-framing.js";
import { recoverDataDirectory } from "./recover-data-directory.js";
import type { RecoveryResult, ReplayedBatchListener } from "./recover-data-directory.js";
import { captureSnapshot, writeSnapshot } from "./snapshot-writer.js";

/** Counters of a running journal. */
export interface JournalStats extends JournalWriterStats {
  /** Snapshots written since start-up. */
  compactions: number;
  /** Generation of the segment being appended to. */
  generation: number;
  /** Size of that segment in bytes. */
  segmentBytes: number;
}

/** Arguments of {@link openJournal}. */
export interface OpenJournalOptions extends JournalOptions {
  readonly storage: Storage;
  /** The data directory, already locked by the caller (`acquireDbPathLock`). */
  readonly directory: string;
  readonly logger: EngineLogger;
  /** Sees every replayed batch (the retryable-write table rebuild hooks in here). */
  readonly onReplayedBatch?: ReplayedBatchListener;
}

/**
 * The durable side of a data directory: recovers the storage from it, then journals every
 * committed batch and, now and then, folds the journal into a snapshot. See README.md
 * ("Journal and crash recovery") for the file format and the crash-safety argument.
 *
 * @example
 * const journal = await openJournal({storage: engine.storage, directory: dbPath, logger});
 * engine.setDurabilityBarrier(() => journal.flush());
 * // ... serve ...
 * await journal.close(); // snapshot + close
 */
export class Journal {
  private compactions = 0;
  private compacting: Promise<void> | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;

  private constructor(
    private readonly storage: Storage,
    readonly directory: string,
    private readonly writer: JournalWriter,
    readonly options: ResolvedJournalOptions,
    private readonly logger: EngineLogger,
    /** What start-up recovery found. */
    readonly recovery: RecoveryResult,
    /** True when the current segment holds records a snapshot does not have yet. */
    private dirty: boolean,
  ) {
    // Subscribed only after replay, so replayed batches are never journaled twice. Each
    // notification is one atomic committed batch: one record, all of it or (torn) none.
    this.unsubscribe = storage.oplog.subscribe((entries) => this.append(entries));
  }

  /** @internal Use {@link openJournal}. */
  static async open(options: OpenJournalOptions): Promise<Journal> {
    const resolved = resolveJournalOptions(options);
    const directory = path.resolve(options.directory);
    const recovery = await recoverDataDirectory(options.storage, directory, options.logger, options.onReplayedBatch);
    let journal: Journal | undefined;
    const writer = await JournalWriter.open(directory, recovery.generation, resolved, () => journal?.compactInBackground());
    journal = new Journal(options.storage, directory, writer, resolved, options.logger, recovery, recovery.replayedBatches > 0);
    if (recovery.replayedBytes >= resolved.compactAfterBytes) journal.compactInBackground();
    return journal;
  }

  /**
   * Resolves once every batch committed before the call is as durable as `fsync` promises
   * (written and fsynced with "always"). The engine's durability barrier.
   */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /**
   * Writes a snapshot of the whole state and drops the journal before it (crash-safe at every
   * step; see README.md). Concurrent calls share one compaction.
   */
  compact(): Promise<void> {
    this.compacting ??= this.runCompaction().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  stats(): JournalStats {
    return { ...this.writer.stats, compactions: this.compactions, generation: this.writer.generation, segmentBytes: this.writer.segmentBytes };
  }

  /**
   * Stops journaling: waits for a running compaction, snapshots if anything was journaled since
   * the last snapshot (`compactOnClose`), and closes the segment with everything fsynced.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.compacting?.catch(() => {});
      if (this.options.compactOnClose && this.dirty && !this.writer.failed) await this.compact();
    } finally {
      this.unsubscribe();
      try {
        await this.writer.close();
      } catch (error) {
        // Already reported to every write since (their replies were errors): the directory holds
        // exactly what was acknowledged, and the next start-up recovers it.
        this.logger.error("embedded-mongo: the journal was closed after a write failure", error);
      }
    }
  }

  private append(entries: readonly OplogEntry[]): void {
    let record: Buffer;
    try {
      record = encodeRecord(entries.map(encodeEntry));
    } catch (error) {
      // Cannot happen for documents that came off the wire. If it ever does, the batch is in
      // memory but cannot be made durable: fail the journal so no write is acknowledged again.
      this.logger.error("embedded-mongo: a committed batch could not be encoded for the journal", error);
      this.writer.failWith(error);
      return;
    }
    this.dirty = true;
    this.writer.append(record);
  }

  private compactInBackground(): void {
    if (this.closed || this.compacting) return;
    this.compact().catch((error: unknown) => this.logger.error("embedded-mongo: journal compaction failed (the journal keeps growing)", error));
  }

  private async runCompaction(): Promise<void> {
    const generation = this.writer.generation + 1;
    // Capture and rotate in the same tick: the snapshot holds exactly the batches of the
    // segments before `generation`, and every later batch goes to segment `generation`.
    const capture = captureSnapshot(this.storage);
    this.dirty = false;
    try {
      await this.writer.rotate(generation);
      await writeSnapshot(this.directory, generation, capture);
    } catch (error) {
      // The batches before the rotation are still only in the journal: try again later.
      this.dirty = true;
      throw error;
    }
    this.compactions += 1;
    // The snapshot is durable: everything older is redundant.
    const files = await listDataFiles(this.directory);
    for (const old of files.segments) if (old < generation) await unlink(segmentPath(this.directory, old));
    for (const old of files.snapshots) if (old < generation) await unlink(snapshotPath(this.directory, old));
    await syncDirectory(this.directory);
  }
}

/**
 * Opens the journal of a locked data directory: recovers `storage` (which must be empty) from
 * the newest snapshot and the journal after it, then journals every commit.
 *
 * @example
 * const journal = await openJournal({storage: engine.storage, directory: ".svc/data", logger, fsync: "always"});
 */
export function openJournal(options: OpenJournalOptions): Promise<Journal> {
  return Journal.open(options);
}
