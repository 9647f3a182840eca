import type { Timestamp } from "bson";
import type { OplogEntry } from "./write-ops.js";

/** Receives every committed batch's entries, synchronously, in commit order. */
export type CommitListener = (entries: readonly OplogEntry[]) => void;

/**
 * The bounded, in-memory history of committed entries (a capped "local.oplog.rs"), oldest first.
 * Storage appends to it on every commit and then notifies listeners; change streams read from it
 * and subscribe for wake-ups; the journal subscribes to persist batches.
 *
 * @example
 * const oplog = new Oplog(10_000);
 * const unsubscribe = oplog.subscribe((entries) => wakeAwaitingCursors(entries));
 */
export class Oplog {
  private entries: OplogEntry[] = [];
  /** Index of the oldest retained entry in `entries` (we trim lazily to avoid O(n) shifts). */
  private start = 0;
  /** `ts` of the newest entry trimmed away (history before and at it is gone). */
  private trimmedThroughTs: Timestamp | undefined;
  private readonly listeners = new Set<CommitListener>();

  constructor(readonly capacity: number) {}

  /** Number of retained entries. */
  get size(): number {
    return this.entries.length - this.start;
  }

  /** Appends a committed batch, trims history beyond `capacity`, then notifies listeners. */
  append(batch: readonly OplogEntry[]): void {
    if (batch.length === 0) return;
    for (const entry of batch) this.entries.push(entry);
    const excess = this.size - this.capacity;
    if (excess > 0) {
      this.start += excess;
      this.trimmedThroughTs = this.entries[this.start - 1]!.ts;
      // Compact once the dead prefix is as large as the live part, amortized O(1) per append.
      if (this.start > this.capacity) {
        this.entries = this.entries.slice(this.start);
        this.start = 0;
      }
    }
    for (const listener of this.listeners) listener(batch);
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The oldest retained entry (what a resume point must not be older than). */
  oldest(): OplogEntry | undefined {
    return this.entries[this.start];
  }

  /**
   * The `ts` of the newest entry no longer retained, if any was trimmed: a reader positioned
   * before it has lost history (change streams answer ChangeStreamHistoryLost, 286).
   */
  trimmedThrough(): Timestamp | undefined {
    return this.trimmedThroughTs;
  }

  /**
   * Forgets the whole history as if it had been trimmed through `through`: journal recovery
   * calls it after replaying (replayed batches are not new events, and carry new timestamps),
   * so a change stream resuming from before a restart gets ChangeStreamHistoryLost (286).
   */
  clear(through: Timestamp): void {
    this.entries = [];
    this.start = 0;
    this.trimmedThroughTs = through;
  }

  latest(): OplogEntry | undefined {
    return this.size > 0 ? this.entries[this.entries.length - 1] : undefined;
  }

  /** Retained entries with `ts` strictly after the given timestamp, oldest first (a snapshot). */
  after(ts: Timestamp): OplogEntry[] {
    // Binary search: timestamps are strictly increasing.
    let lo = this.start;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.ts.compare(ts) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return this.entries.slice(lo);
  }
}
