import type { ClientSession, Connection } from "mongoose";
import type { SyncBookkeeping } from "./sync-bookkeeping.js";

/** How often one write retries its transaction before giving up (each retry follows a conflict). */
const MAX_ATTEMPTS = 200;

/**
 * Whether a failed transactional step may simply be run again: MongoDB labels write conflicts
 * (112) and lost transactions `TransientTransactionError`; a duplicate key on a counter's
 * `stream` is two writers creating the same new stream at once, which a retry also settles.
 */
export function isTransientWriteError(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  const candidate = error as { code?: unknown; errorLabels?: unknown; hasErrorLabel?: (label: string) => boolean; keyPattern?: Record<string, unknown> };
  if (candidate.hasErrorLabel?.("TransientTransactionError")) return true;
  if (Array.isArray(candidate.errorLabels) && candidate.errorLabels.includes("TransientTransactionError")) return true;
  if (candidate.code === 112 || candidate.code === 251) return true;
  return candidate.code === 11000 && candidate.keyPattern !== undefined && "stream" in candidate.keyPattern && !("entityId" in candidate.keyPattern);
  // (A duplicate `stream` can still come from a deployment that checks unique keys at commit.)
}

/**
 * Draws the next seq of a stream inside the caller's transaction. The counter document is the
 * stream's lock: a second transaction that draws from the same stream before this one commits
 * fails with a write conflict and retries after it, so within a stream seqs commit in the order
 * they were drawn (docs/decisions.md, "Sync ordering"). Throws a transient error (retry the
 * transaction) the first time a stream is used, after creating its counter.
 *
 * @example
 * const seq = await drawSeq(bookkeeping, "todos|owner:u1", session); // 1, 2, 3...
 */
export async function drawSeq(bookkeeping: SyncBookkeeping, stream: string, session: ClientSession, mark?: { tombstones: true }): Promise<number> {
  const update = mark ? { $inc: { seq: 1 }, $set: mark } : { $inc: { seq: 1 } };
  // The driver's collection: this runs in every synced write, and the counter needs no casting.
  const counter = await bookkeeping.counters.collection.findOneAndUpdate({ stream }, update, { returnDocument: "after", session, projection: { seq: 1 } });
  if (counter) return counter.seq as number;
  // A stream's first write: the counter is created outside the transaction and the transaction
  // retried. Inside it, two first writers would both insert a counter, and how a unique index
  // treats another transaction's uncommitted insert differs between deployments; an update of
  // an existing document conflicts the same way everywhere.
  await bookkeeping.counters.updateOne({ stream }, { $setOnInsert: { seq: 0 } }, { upsert: true }).exec().catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== 11000) throw error;
  });
  throw new CounterCreated(stream);
}

/** The transient failure of a stream's first draw: the counter now exists, so run the transaction again. */
class CounterCreated extends Error {
  readonly errorLabels = ["TransientTransactionError"];
  constructor(stream: string) {
    super(`The counter of ${stream} was just created; retry`);
  }
}

/**
 * The committed last seq of a stream (0 before its first write): the snapshot's `frontierSeq`.
 * Every write with a seq at or below it has committed, because seqs of a stream commit in order.
 * Also says whether the stream has tombstones (an entity moved out of it once).
 */
export async function frontierOf(bookkeeping: SyncBookkeeping, stream: string): Promise<{ seq: number; tombstones: boolean }> {
  const counter = await bookkeeping.counters.collection.findOne({ stream }, { projection: { seq: 1, tombstones: 1 } });
  return { seq: (counter?.seq as number | undefined) ?? 0, tombstones: counter?.tombstones === true };
}

/** Waits a little before retrying, longer after each conflict, with jitter so writers spread out. */
export function conflictBackoff(attempt: number): Promise<void> {
  const ceiling = Math.min(50, 1 + attempt * 2);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/**
 * Runs `work` in a transaction on `connection`, retrying the whole of it after a transient
 * failure (another writer of the same stream committed first). `work` must be repeatable: it
 * reloads what it reads. Its result is returned after the commit.
 *
 * @example
 * const ack = await inSyncTransaction(Todo.db, async (session) => { ...; return ack; });
 */
export async function inSyncTransaction<R>(connection: Connection, work: (session: ClientSession) => Promise<R>): Promise<R> {
  const session = await connection.startSession();
  try {
    for (let attempt = 1; ; attempt++) {
      session.startTransaction({ readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
      try {
        const result = await work(session);
        await commitWithRetry(session);
        return result;
      } catch (error) {
        if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
        if (!isTransientWriteError(error) || attempt >= MAX_ATTEMPTS) throw error;
        await conflictBackoff(attempt);
      }
    }
  } finally {
    await session.endSession();
  }
}

/** Commits, retrying only an unknown commit result (the commit itself is idempotent). */
export async function commitWithRetry(session: ClientSession): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await session.commitTransaction();
      return;
    } catch (error) {
      const labelled = (error as { hasErrorLabel?: (label: string) => boolean }).hasErrorLabel?.("UnknownTransactionCommitResult") === true;
      if (!labelled || attempt >= 5) throw error;
    }
  }
}

/** Retry budget shared with the schema plugin's own transactions. */
export const SEQUENCING_MAX_ATTEMPTS = MAX_ATTEMPTS;
