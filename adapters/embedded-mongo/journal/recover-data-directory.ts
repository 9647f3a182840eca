import type { Document, Timestamp } from "bson";
import { open, unlink } from "node:fs/promises";
import { optionNumber } from "../bson-number.js";
import type { EngineLogger } from "../engine-logger.js";
import type { Storage } from "../storage/storage.js";
import { decodeEntry, splitDocuments } from "./entry-codec.js";
import type { JournalEntry } from "./entry-codec.js";
import { JournalError, JournalErrorCodes } from "./journal-error.js";
import { listDataFiles, segmentPath, snapshotPath, syncDirectory } from "./journal-files.js";
import { RecordFileReader } from "./record-file-reader.js";
import { entryToWriteOp } from "./replay-entry.js";
import { loadSnapshot } from "./snapshot-loader.js";

/** A replayed entry, with the pre-image replay found for updates and deletes. */
export interface RecoveredEntry extends JournalEntry {
  readonly preImage?: Document;
}

/**
 * Called once per replayed batch with its journaled entries, original `ts`, `lsid` and
 * `txnNumber` included, plus the pre-image of updates and deletes (which the journal does not
 * store: it is the document replay found in place): the seam where the retryable-write table is
 * rebuilt after a restart (a retried `findAndModify` answers with the pre-image).
 */
export type ReplayedBatchListener = (entries: readonly RecoveredEntry[]) => void;

/** What recovery found and did. */
export interface RecoveryResult {
  /** The segment appending continues in. */
  readonly generation: number;
  readonly snapshotGeneration: number | undefined;
  readonly snapshotDocuments: number;
  readonly replayedBatches: number;
  readonly replayedEntries: number;
  /** Journal bytes replayed (what a snapshot would save at the next start-up). */
  readonly replayedBytes: number;
  /** A torn tail dropped from the last segment. */
  readonly truncated?: { readonly file: string; readonly offset: number; readonly bytes: number };
}

/**
 * Rebuilds `storage` (fresh, empty) from a data directory: the newest snapshot, then every
 * journal segment from its generation on, each batch re-committed through `Storage.commit` as
 * the README's recipe says. A torn last record of the last segment is truncated away with a
 * warning; any other damage, a missing segment or an unappliable record is a `JournalError`
 * naming the file and offset — never silently skipped. Leftovers of an interrupted compaction
 * (older snapshots and segments, `.tmp` files) are deleted afterwards. The cluster clock is
 * advanced past the newest replayed timestamp and the in-memory oplog emptied (change-stream
 * history does not survive a restart).
 *
 * @example
 * const result = await recoverDataDirectory(engine.storage, dbPath, logger);
 * // then append to segment result.generation
 */
export async function recoverDataDirectory(
  storage: Storage,
  directory: string,
  logger: EngineLogger,
  onReplayedBatch?: ReplayedBatchListener,
): Promise<RecoveryResult> {
  const files = await listDataFiles(directory);
  const snapshotGeneration = files.snapshots.at(-1);
  let snapshotDocuments = 0;
  let latest: Timestamp | undefined;
  if (snapshotGeneration !== undefined) {
    const loaded = await loadSnapshot(storage, snapshotPath(directory, snapshotGeneration));
    if (loaded.generation !== snapshotGeneration) {
      throw new JournalError(
        JournalErrorCodes.Corrupt,
        `snapshot ${snapshotPath(directory, snapshotGeneration)} says it is generation ${loaded.generation}`,
        snapshotPath(directory, snapshotGeneration),
        0,
      );
    }
    snapshotDocuments = loaded.documents;
    latest = loaded.clock;
  }
  const first = snapshotGeneration ?? 1;
  const segments = files.segments.filter((generation) => generation >= first);
  // Segments are consecutive from the snapshot's generation: a gap is a lost file.
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] !== first + i) {
      const missing = segmentPath(directory, first + i);
      throw new JournalError(JournalErrorCodes.Corrupt, `journal segment ${missing} is missing (found ${segmentPath(directory, segments[i]!)})`, missing);
    }
  }
  if (snapshotGeneration !== undefined && segments.length === 0) {
    const missing = segmentPath(directory, snapshotGeneration);
    throw new JournalError(JournalErrorCodes.Corrupt, `journal segment ${missing} is missing (snapshot ${snapshotGeneration} has no journal after it)`, missing);
  }
  if (snapshotGeneration === undefined && files.segments.length > 0 && files.segments[0]! > 1) {
    const file = segmentPath(directory, files.segments[0]!);
    throw new JournalError(JournalErrorCodes.Corrupt, `journal segment ${file} has no snapshot before it`, file);
  }

  let replayedBatches = 0;
  let replayedEntries = 0;
  let replayedBytes = 0;
  let truncated: RecoveryResult["truncated"];
  for (const [i, generation] of segments.entries()) {
    const file = segmentPath(directory, generation);
    const isLast = i === segments.length - 1;
    const reader = await RecordFileReader.open(file);
    try {
      let sawHeader = false;
      for (let record = await reader.next(); record; record = await reader.next()) {
        const at = record.offset;
        const fail = (code: typeof JournalErrorCodes.Corrupt | typeof JournalErrorCodes.Unreplayable, message: string, cause?: unknown): JournalError =>
          new JournalError(code, `journal ${file} at offset ${at}: ${message}`, file, at, { cause });
        let documents;
        try {
          documents = splitDocuments(record.payload);
        } catch (error) {
          throw fail(JournalErrorCodes.Corrupt, (error as Error).message, error);
        }
        if (!sawHeader) {
          const header = documents[0]!;
          if (optionNumber(header["svcJournal"]) !== 1 || optionNumber(header["generation"]) !== generation) {
            throw fail(JournalErrorCodes.Corrupt, "not the header of an svc-db journal segment of this generation");
          }
          sawHeader = true;
          continue;
        }
        let entries: JournalEntry[];
        try {
          entries = documents.map(decodeEntry);
        } catch (error) {
          throw fail(JournalErrorCodes.Corrupt, (error as Error).message, error);
        }
        const recovered: RecoveredEntry[] = [];
        for (const entry of entries) {
          if (latest !== undefined && entry.ts.compare(latest) <= 0) {
            throw fail(JournalErrorCodes.Corrupt, `timestamps go backwards (${entry.ts.toString()} after ${latest.toString()})`);
          }
          latest = entry.ts;
          try {
            const op = entryToWriteOp(storage, entry);
            storage.commit({
              ops: [op],
              ...(entry.lsid !== undefined ? { lsid: entry.lsid } : {}),
              ...(entry.txnNumber !== undefined ? { txnNumber: entry.txnNumber } : {}),
            });
            recovered.push(op.op === "update" || op.op === "delete" ? { ...entry, preImage: op.before } : entry);
          } catch (error) {
            throw fail(JournalErrorCodes.Unreplayable, `cannot re-apply ${entry.op} on ${entry.ns}: ${(error as Error).message}`, error);
          }
        }
        onReplayedBatch?.(recovered);
        replayedBatches += 1;
        replayedEntries += entries.length;
        replayedBytes += record.payload.length;
      }
      const tail = await reader.tail();
      if (tail.damage) {
        const { offset, reason, torn } = tail.damage;
        if (!isLast || !torn) {
          throw new JournalError(
            JournalErrorCodes.Corrupt,
            `journal ${file} is damaged at offset ${offset} (${reason})${torn ? "" : " and valid records follow"}: acknowledged writes may depend on it, refusing to start`,
            file,
            offset,
          );
        }
        logger.warn(`embedded-mongo: dropping a torn journal tail of ${tail.size - offset} bytes at offset ${offset} of ${file} (${reason}): a write cut short by a crash, never acknowledged`);
        await truncateFile(file, offset);
        truncated = { file, offset, bytes: tail.size - offset };
      }
    } finally {
      await reader.close();
    }
  }
  if (latest !== undefined) storage.clock.advanceTo(latest);
  // Replay went through commit, so the in-memory oplog holds the replayed batches under new
  // timestamps: they are not events. History restarts empty; anything before now is lost (286).
  storage.oplog.clear(storage.clock.current());
  // The first cluster time clients see is strictly after the lost history, so starting a
  // change stream at it is not mistaken for resuming from before the restart.
  storage.clock.tick();

  // Only now that the state is rebuilt: drop what an interrupted compaction left behind.
  let removed = false;
  for (const file of files.temporary) removed = (await removeFile(file)) || removed;
  for (const generation of files.snapshots) if (generation < first) removed = (await removeFile(snapshotPath(directory, generation))) || removed;
  for (const generation of files.segments) if (generation < first) removed = (await removeFile(segmentPath(directory, generation))) || removed;
  if (removed) await syncDirectory(directory);

  return {
    generation: segments.at(-1) ?? first,
    snapshotGeneration,
    snapshotDocuments,
    replayedBatches,
    replayedEntries,
    replayedBytes,
    ...(truncated ? { truncated } : {}),
  };
}

async function truncateFile(file: string, length: number): Promise<void> {
  const handle = await open(file, "r+");
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function removeFile(file: string): Promise<boolean> {
  try {
    await unlink(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
