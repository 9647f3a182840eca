import type { Document, Long } from "bson";
import { equalityKey } from "../query/index.js";
import type { RetryableWriteRecord } from "./retryable-write-record.js";
import type { Transaction } from "./transaction.js";

/** `hello`'s `logicalSessionTimeoutMinutes`: a session unused this long is forgotten (mongod's default). */
export const LOGICAL_SESSION_TIMEOUT_MINUTES = 30;

/**
 * One server-side logical session (`lsid`), the state mongod keeps per session in
 * `config.system.sessions` / `config.transactions`: when it was last used, the highest
 * transaction number it used, and what that number did — a multi-document transaction or a
 * retryable write (whose reply a retry gets back instead of writing twice).
 *
 * @example
 * const session = registry.touch(command.lsid);
 * session.txnNumber; // Long or undefined before the first retryable write / transaction
 */
export class LogicalSession {
  /** Highest `txnNumber` seen on this session (a lower one is TransactionTooOld, 225). */
  txnNumber: Long | undefined = undefined;
  /** The transaction `txnNumber` started, if that number is a transaction's. */
  transaction: Transaction | undefined = undefined;
  /** The executed retryable write of `txnNumber`, if that number is a retryable write's. */
  retryableWrite: RetryableWriteRecord | undefined = undefined;

  private cursorKeyCache: string | undefined = undefined;

  constructor(
    /** `sessionKeyOf(lsid)`: the table key (cursors carry `cursorKey` instead). */
    readonly key: string,
    readonly lsid: Document,
    public lastUse: number,
  ) {}

  /** `equalityKey(lsid.id)`: the `sessionKey` of the session's cursors (computed once per session). */
  get cursorKey(): string {
    return (this.cursorKeyCache ??= equalityKey(this.lsid["id"]));
  }
}
