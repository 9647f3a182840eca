import type { ClientSession, Connection } from "mongoose";
import { Turns } from "../../kernel/turns.js";
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
  drawnStreams.get(session)?.add(stream);
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
  const drawn = trackDraws(session);
  let release: (() => void) | undefined;
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
        // After a conflict, writers of this process wait their turn for the stream instead of all
        // retrying at once: many writers of one stream (a busy tenant) otherwise keep conflicting
        // with each other until some exhaust their attempts, and the stream's throughput collapses.
        if (!release && drawn.size > 0) release = await holdStreams([...drawn]);
        else await conflictBackoff(attempt);
      }
    }
  } finally {
    release?.();
    drawnStreams.delete(session);
    await session.endSession();
  }
}

/** The streams each tracked session drew from (so a retry knows which to wait for). */
const drawnStreams = new WeakMap<ClientSession, Set<string>>();

/** From now on, records the streams `drawSeq` draws from in this session (the set it returns). */
export function trackDraws(session: ClientSession): Set<string> {
  const drawn = new Set<string>();
  drawnStreams.set(session, drawn);
  return drawn;
}

/**
 * The longest a writer waits its turn for a stream. The turn is advisory (the counter's conflict
 * is what orders writes), so a holder that never finishes — a hook that saves to the same stream
 * outside the transaction, waiting on its own turn — delays the others, never blocks them.
 */
const streamTurns = new Turns(10_000);

/**
 * Waits until this process's earlier holders of each stream are done (at most 10 s), then holds
 * them all until the returned release is called.
 */
export function holdStreams(streams: readonly string[]): Promise<() => void> {
  return streamTurns.take(streams);
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
