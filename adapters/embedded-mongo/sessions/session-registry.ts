import type { Document, Long } from "bson";
import { equalityKey } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CursorRegistry } from "../cursors/cursor-registry.js";
import type { EngineLogger } from "../engine-logger.js";
import type { Storage } from "../storage/storage.js";
import type { OplogEntry, WriteOp } from "../storage/write-ops.js";
import { LogicalSession } from "./logical-session.js";
import { sessionKeyOf } from "./session-key.js";
import { liveReadView } from "./read-view.js";
import type { ReadView } from "./read-view.js";
import { retryReply } from "./retryable-write-record.js";
import type { ReplayedEntry } from "./retryable-write-record.js";
import {
  noSuchTransactionError,
  transactionAbortedError,
  transactionCommittedError,
  transactionTooOldError,
  writeConflictError,
} from "./transaction-errors.js";
import { Transaction } from "./transaction.js";
import { WriteLocks } from "./write-locks.js";

export interface SessionRegistryOptions {
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  readonly logger: EngineLogger;
  /** mongod `transactionLifetimeLimitSeconds`, in milliseconds. */
  readonly transactionLifetimeLimitMs: number;
  /** `logicalSessionTimeoutMinutes`, in milliseconds: an unused session is forgotten after this. */
  readonly sessionTimeoutMs: number;
  readonly now?: () => number;
}

/** What a statement that names a transaction asks for. */
export interface TransactionRequest {
  /** The command name (commitTransaction may find its transaction committed: a retry). */
  readonly name: string;
  /** `startTransaction: true`: the first statement. */
  readonly starting: boolean;
  readonly readConcernLevel: string | undefined;
}

const LIFETIME_EXCEEDED = "it exceeded transactionLifetimeLimitSeconds";

/**
 * The server's logical sessions (keyed by `equalityKey(lsid.id)`) and everything hanging off them:
 * multi-document transactions (state machine, snapshot upkeep, write locks, lifetime limit) and
 * the retryable-write table. Sessions unused for `logicalSessionTimeoutMinutes` are swept; ending,
 * killing or expiring a session aborts its transaction and kills its cursors.
 *
 * Snapshot upkeep: the registry listens to the oplog. While transactions are open, every document
 * another session commits a change to is recorded in each open transaction with the version its
 * snapshot saw, and a commit touching a document an open transaction wrote dooms that transaction
 * (WriteConflict at its next statement or commit). With no open transaction the listener returns
 * at once, so the ordinary write path pays one size check.
 *
 * @example
 * const session = registry.touch(command.lsid);
 * const txn = registry.transactionFor(session, txnNumber, {name: "insert", starting: true, readConcernLevel: undefined});
 * registry.commit(session, txn);
 */
export class SessionRegistry {
  /** The view of committed data, read by every command outside a transaction. */
  readonly committedView: ReadView;
  private readonly sessions = new Map<string, LogicalSession>();
  private readonly open = new Set<Transaction>();
  private readonly locks = new WriteLocks<Transaction>();
  private readonly storage: Storage;
  private readonly cursors: CursorRegistry;
  private readonly now: () => number;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: SessionRegistryOptions) {
    this.storage = options.storage;
    this.cursors = options.cursors;
    this.now = options.now ?? Date.now;
    this.committedView = liveReadView(options.storage);
    this.unsubscribe = options.storage.oplog.subscribe((entries) => this.onCommitted(entries));
  }

  /** Number of known sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Number of transactions in progress. */
  get openTransactions(): number {
    return this.open.size;
  }

  /** The session of `lsid`, created on first use; marks it used now. */
  touch(lsid: Document): LogicalSession {
    const key = sessionKeyOf(lsid);
    const now = this.now();
    let session = this.sessions.get(key);
    if (session === undefined) {
      session = new LogicalSession(key, lsid, now);
      this.sessions.set(key, session);
    } else {
      session.lastUse = now;
    }
    return session;
  }

  /** Every session the engine knows, least recently created first (`$listLocalSessions`). */
  list(): LogicalSession[] {
    return [...this.sessions.values()];
  }

  /** The session with this key, if known (tests, `endSessions`). */
  get(key: string): LogicalSession | undefined {
    return this.sessions.get(key);
  }

  /**
   * The transaction a statement with `autocommit: false` belongs to, started when it carries
   * `startTransaction: true` with a new `txnNumber`, following mongod's rules: an older number →
   * TransactionTooOld (225); restarting the current number → ConflictingOperationInProgress (117);
   * continuing a number never started, or an aborted (or expired) transaction → NoSuchTransaction
   * (251, TransientTransactionError); anything but commitTransaction after commit →
   * TransactionCommitted (256). Starting a newer transaction aborts an unfinished older one.
   */
  transactionFor(session: LogicalSession, txnNumber: Long, request: TransactionRequest): Transaction {
    const active = session.txnNumber;
    const order = active === undefined ? 1 : txnNumber.compare(active);
    if (order < 0) throw transactionTooOldError("transaction", txnNumber, active!);
    if (order > 0) {
      if (!request.starting) throw noSuchTransactionError(txnNumber, active);
      this.supersede(session);
      const transaction = new Transaction({
        txnNumber,
        storage: this.storage,
        locks: this.locks,
        startedAt: this.now(),
        readConcernLevel: request.readConcernLevel,
      });
      session.txnNumber = txnNumber;
      session.transaction = transaction;
      session.retryableWrite = undefined;
      this.open.add(transaction);
      return transaction;
    }
    if (request.starting) {
      throw new EngineError(
        ErrorCodes.ConflictingOperationInProgress,
        "Only servers in a sharded cluster can start a new transaction at the active transaction number",
      );
    }
    const transaction = session.transaction ?? this.replayedCommit(session, txnNumber, request.name);
    if (transaction === undefined) throw noSuchTransactionError(txnNumber, active);
    if (transaction.state === "inProgress" && this.now() - transaction.startedAt > this.options.transactionLifetimeLimitMs) {
      this.abort(transaction, LIFETIME_EXCEEDED);
    }
    if (transaction.state === "aborted") throw transactionAbortedError(txnNumber, transaction.abortReason);
    if (transaction.state === "committed" && request.name !== "commitTransaction") throw transactionCommittedError(txnNumber);
    return transaction;
  }

  /**
   * Commits: applies the whole buffer with one `Storage.commit` tagged with the session and
   * `txnNumber` — all of it or none, and only now visible to others and to the oplog (change
   * streams, journal). Committing a committed transaction again is a no-op (commit retries).
   * A transaction doomed by a conflicting commit, or whose buffer no longer applies, is aborted
   * with WriteConflict (112, TransientTransactionError).
   */
  commit(session: LogicalSession, transaction: Transaction): void {
    if (transaction.state === "committed") return;
    if (transaction.state === "aborted") throw transactionAbortedError(transaction.txnNumber, transaction.abortReason);
    const conflict = transaction.conflict;
    if (conflict) {
      this.abort(transaction, "write conflict");
      throw conflict;
    }
    // Leave the open set first: this very commit must not be recorded as "another session's".
    this.release(transaction);
    const ops = transaction.operations;
    try {
      if (ops.length > 0) this.storage.commit({ ops, lsid: session.lsid, txnNumber: transaction.txnNumber, inTransaction: true });
    } catch (error) {
      transaction.state = "aborted";
      transaction.abortReason = `commit failed: ${(error as Error).message}`;
      transaction.discard();
      throw writeConflictError(namespaceOf(ops[0]), `the transaction no longer applies: ${(error as Error).message}`);
    }
    transaction.state = "committed";
    transaction.discard();
  }

  /** Aborts a transaction in progress: its buffer is dropped, its locks and cursors released. */
  abort(transaction: Transaction, reason?: string): void {
    if (transaction.state !== "inProgress") return;
    transaction.state = "aborted";
    transaction.abortReason = reason;
    this.release(transaction);
    transaction.discard();
  }

  /**
   * Before a retryable write (`lsid` + `txnNumber`, no `autocommit`) runs: the reply to send
   * instead when this `txnNumber` already executed (a retry must not write again), else
   * `undefined` and the session moves to `txnNumber`. An older number → TransactionTooOld (225).
   */
  retryableWriteReply(session: LogicalSession, txnNumber: Long, name: string, command: Document): Document | undefined {
    const active = session.txnNumber;
    if (active !== undefined) {
      const order = txnNumber.compare(active);
      if (order < 0) throw transactionTooOldError("retryable write", txnNumber, active);
      if (order === 0) {
        if (session.transaction) {
          throw new EngineError(
            ErrorCodes.IncompleteTransactionHistory,
            `Cannot run a retryable write with txnNumber ${txnNumber.toString()}: a multi-document transaction used it on this session`,
          );
        }
        const record = session.retryableWrite;
        if (record === undefined) return undefined;
        if (record.kind === "reply" && record.commandName !== name) {
          throw new EngineError(
            ErrorCodes.IncompleteTransactionHistory,
            `Retryable write with txnNumber ${txnNumber.toString()} was a '${record.commandName}', not a '${name}'`,
          );
        }
        return retryReply(record, command);
      }
    }
    this.supersede(session);
    session.txnNumber = txnNumber;
    session.transaction = undefined;
    session.retryableWrite = undefined;
    return undefined;
  }

  /** Remembers the reply of an executed retryable write (only successful replies: a failed command wrote nothing). */
  recordRetryableWrite(session: LogicalSession, txnNumber: Long, name: string, reply: Document): void {
    if (reply["ok"] !== 1 || session.txnNumber === undefined || !session.txnNumber.equals(txnNumber)) return;
    session.retryableWrite = { kind: "reply", txnNumber, commandName: name, reply };
  }

  /**
   * Rebuilds the retryable-write table from recovered entries (journal replay): every entry with
   * `lsid` and `txnNumber` marks that session's number as executed, so a retry after a restart
   * gets a reply rebuilt from the entries (and a commitTransaction retry gets ok) instead of
   * writing twice. Feed it batches in commit order (`onReplayedBatch`).
   *
   * @example
   * openJournal({..., onReplayedBatch: (entries) => engine.sessions.replayCommittedBatch(entries)});
   */
  replayCommittedBatch(entries: readonly ReplayedEntry[]): void {
    for (const entry of entries) {
      if (entry.lsid === undefined || entry.txnNumber === undefined) continue;
      const session = this.touch(entry.lsid);
      const order = session.txnNumber === undefined ? 1 : entry.txnNumber.compare(session.txnNumber);
      if (order < 0) continue;
      let record = session.retryableWrite;
      if (order > 0 || record?.kind !== "replayed") {
        session.txnNumber = entry.txnNumber;
        session.transaction = undefined;
        record = { kind: "replayed", txnNumber: entry.txnNumber, entries: [] };
        session.retryableWrite = record;
      }
      record.entries.push(entry);
    }
  }

  /** `endSessions` / `killSessions`: aborts the sessions' transactions, kills their cursors, forgets them. */
  end(lsids: readonly Document[]): void {
    for (const lsid of lsids) {
      const key = sessionKeyOf(lsid);
      const session = this.sessions.get(key);
      if (session) this.endSession(session, "its session was ended");
      else this.cursors.killSession(equalityKey(lsid["id"]));
    }
  }

  /** `refreshSessions`: keeps the sessions alive. */
  refresh(lsids: readonly Document[]): void {
    for (const lsid of lsids) this.touch(lsid);
  }

  /** `killAllSessions` / `killAllSessionsByPattern`: every session (the engine has no users). */
  killAll(): void {
    for (const session of [...this.sessions.values()]) this.endSession(session, "its session was killed");
  }

  /**
   * Aborts transactions past the lifetime limit and forgets sessions unused for the session
   * timeout (the engine's timer calls this; tests pass a `now` in the future).
   */
  sweep(now: number = this.now()): { transactions: number; sessions: number } {
    let transactions = 0;
    for (const transaction of [...this.open]) {
      if (now - transaction.startedAt > this.options.transactionLifetimeLimitMs) {
        this.abort(transaction, LIFETIME_EXCEEDED);
        transactions += 1;
      }
    }
    let sessions = 0;
    for (const session of [...this.sessions.values()]) {
      if (now - session.lastUse > this.options.sessionTimeoutMs) {
        this.endSession(session, "its session expired");
        sessions += 1;
      }
    }
    return { transactions, sessions };
  }

  /** Aborts every open transaction and stops listening to the oplog (engine shutdown). */
  close(): void {
    for (const transaction of [...this.open]) this.abort(transaction, "the server is shutting down");
    this.unsubscribe();
  }

  private endSession(session: LogicalSession, reason: string): void {
    if (session.transaction) this.abort(session.transaction, reason);
    this.cursors.killSession(session.cursorKey);
    this.sessions.delete(session.key);
  }

  /** A new number on the session ends its unfinished transaction, as on mongod. */
  private supersede(session: LogicalSession): void {
    if (session.transaction?.state === "inProgress") {
      this.abort(session.transaction, "a newer transaction number was used on its session");
    }
  }

  /** After a restart, a commitTransaction retry for a transaction recovery replayed: committed. */
  private replayedCommit(session: LogicalSession, txnNumber: Long, name: string): Transaction | undefined {
    if (name !== "commitTransaction" || session.retryableWrite?.kind !== "replayed") return undefined;
    const transaction = new Transaction({ txnNumber, storage: this.storage, locks: this.locks, startedAt: this.now(), readConcernLevel: undefined });
    transaction.state = "committed";
    session.transaction = transaction;
    return transaction;
  }

  private release(transaction: Transaction): void {
    this.open.delete(transaction);
    this.locks.releaseAll(transaction);
    for (const id of transaction.cursorIds) this.cursors.kill(id);
    transaction.cursorIds.length = 0;
  }

  /** The oplog listener: snapshot upkeep and conflict detection for open transactions. */
  private onCommitted(entries: readonly OplogEntry[]): void {
    if (this.open.size === 0) return;
    for (const entry of entries) {
      if (entry.op === "c") {
        for (const ns of namespacesLostBy(entry)) for (const transaction of this.open) transaction.recordCatalogChange(ns);
        continue;
      }
      const idKey = equalityKey((entry.o2 ?? entry.o)["_id"]);
      if (this.locks.size > 0) this.locks.owner(entry.ns, idKey)?.markConflict(entry.ns);
      const before = entry.op === "i" ? null : (entry.preImage ?? null);
      for (const transaction of this.open) transaction.recordCommittedChange(entry.ns, idKey, before);
    }
  }
}

function namespaceOf(op: WriteOp | undefined): string {
  if (op === undefined) return "?";
  return "collection" in op ? `${op.db}.${op.collection}` : `${op.db}.$cmd`;
}

/** Namespaces whose snapshot a catalog entry destroys (drops and renames; dropDatabase drops each first). */
function namespacesLostBy(entry: OplogEntry): string[] {
  const o = entry.o;
  const db = entry.ns.slice(0, entry.ns.length - ".$cmd".length);
  if (typeof o["drop"] === "string") return [`${db}.${o["drop"]}`];
  if (typeof o["renameCollection"] === "string" && typeof o["to"] === "string") return [o["renameCollection"], o["to"]];
  return [];
}
