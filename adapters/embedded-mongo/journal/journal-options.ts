/**
 * When the journal's writes reach the disk, traded against speed:
 * - `"always"` (default): a write is acknowledged only after its journal record is written and
 *   `fdatasync`ed — it survives `kill -9` and power loss.
 * - `"interval"`: acknowledged once written to the operating system (survives `kill -9`, the
 *   kernel still has it), fsynced every `fsyncIntervalMs` (power loss loses at most that long).
 * - `"never"`: written to the operating system before acknowledging, never fsynced except at
 *   compaction and shutdown (survives a process crash, not an operating-system crash).
 */
export type JournalFsyncMode = "always" | "interval" | "never";

/**
 * Journal settings of a data directory (`startEmbeddedMongo({dbPath, journal})`).
 *
 * @example
 * startEmbeddedMongo({dbPath: ".svc/data", journal: {fsync: "interval", fsyncIntervalMs: 50}});
 */
export interface JournalOptions {
  /** Default `"always"`. */
  readonly fsync?: JournalFsyncMode;
  /** With `fsync: "interval"`: how often (mongod's `journalCommitInterval` default: 100 ms). */
  readonly fsyncIntervalMs?: number;
  /**
   * Take a snapshot and start a new segment once the journal since the last snapshot exceeds
   * this many bytes (default 32 MiB: about 150 000 small writes, a few seconds of replay). Start-up
   * replays at most about this much journal.
   */
  readonly compactAfterBytes?: number;
  /** Snapshot on clean shutdown so the next start-up has no journal to replay (default true). */
  readonly compactOnClose?: boolean;
  /**
   * Let concurrent writers share one write + fsync (default true). `false` gives every
   * acknowledged command its own fsync; it exists to measure what group commit saves.
   */
  readonly groupCommit?: boolean;
}

export interface ResolvedJournalOptions {
  readonly fsync: JournalFsyncMode;
  readonly fsyncIntervalMs: number;
  readonly compactAfterBytes: number;
  readonly compactOnClose: boolean;
  readonly groupCommit: boolean;
}

/**
 * Fills in defaults and rejects nonsense early (at start-up, not at the first write).
 *
 * @example
 * resolveJournalOptions({}).fsync; // "always"
 */
export function resolveJournalOptions(options: JournalOptions = {}): ResolvedJournalOptions {
  const fsync = options.fsync ?? "always";
  if (fsync !== "always" && fsync !== "interval" && fsync !== "never") {
    throw new TypeError(`journal.fsync must be "always", "interval" or "never", not ${JSON.stringify(fsync)}`);
  }
  const fsyncIntervalMs = options.fsyncIntervalMs ?? 100;
  if (!(fsyncIntervalMs > 0)) throw new TypeError("journal.fsyncIntervalMs must be a positive number");
  const compactAfterBytes = options.compactAfterBytes ?? 32 * 1024 * 1024;
  if (!(compactAfterBytes > 0)) throw new TypeError("journal.compactAfterBytes must be a positive number");
  return {
    fsync,
    fsyncIntervalMs,
    compactAfterBytes,
    compactOnClose: options.compactOnClose ?? true,
    groupCommit: options.groupCommit ?? true,
  };
}
