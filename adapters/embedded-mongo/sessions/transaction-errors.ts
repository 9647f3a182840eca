import type { Long } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";

/** The label telling drivers (and `withTransaction`) that retrying the whole transaction may succeed. */
export const TRANSIENT_TRANSACTION_ERROR = "TransientTransactionError";

/**
 * Codes mongod labels `TransientTransactionError` when they fail a command of a transaction:
 * write conflicts, snapshot errors, lock timeouts, and NoSuchTransaction (the transaction is gone,
 * so starting it again is the remedy).
 */
const TRANSIENT_CODES: ReadonlySet<number> = new Set([
  ErrorCodes.WriteConflict,
  ErrorCodes.NoSuchTransaction,
  ErrorCodes.SnapshotUnavailable,
  ErrorCodes.SnapshotTooOld,
  ErrorCodes.LockTimeout,
]);

/**
 * Whether an error failing a command inside a transaction gets the `TransientTransactionError` label.
 *
 * @example
 * isTransientTransactionCode(112); // true
 */
export function isTransientTransactionCode(code: number): boolean {
  return TRANSIENT_CODES.has(code);
}

/**
 * WriteConflict (112): another session changed a document this transaction writes after its
 * snapshot, or another open transaction already wrote it (first writer wins).
 *
 * @example
 * throw writeConflictError("app.accounts");
 */
export function writeConflictError(ns: string, detail = "another operation changed the document"): EngineError {
  return new EngineError(
    ErrorCodes.WriteConflict,
    `Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction. (${ns}: ${detail})`,
    { errorLabels: [TRANSIENT_TRANSACTION_ERROR] },
  );
}

/**
 * NoSuchTransaction (251) with mongod's wording for an aborted transaction.
 *
 * @example
 * throw transactionAbortedError(Long.fromNumber(3), "it exceeded transactionLifetimeLimitSeconds");
 */
export function transactionAbortedError(txnNumber: Long, reason?: string): EngineError {
  return new EngineError(
    ErrorCodes.NoSuchTransaction,
    `Transaction with { txnNumber: ${txnNumber.toString()} } has been aborted.${reason ? ` (${reason})` : ""}`,
    { errorLabels: [TRANSIENT_TRANSACTION_ERROR] },
  );
}

/**
 * NoSuchTransaction (251) for a transaction number that was never started on the session.
 *
 * @example
 * throw noSuchTransactionError(Long.fromNumber(5), Long.fromNumber(4));
 */
export function noSuchTransactionError(txnNumber: Long, active: Long | undefined): EngineError {
  return new EngineError(
    ErrorCodes.NoSuchTransaction,
    `Given transaction number ${txnNumber.toString()} does not match any in-progress transactions. The active transaction number is ${active === undefined ? "-1" : active.toString()}`,
    { errorLabels: [TRANSIENT_TRANSACTION_ERROR] },
  );
}

/**
 * TransactionCommitted (256): a statement (or abort) for a transaction that has committed.
 *
 * @example
 * throw transactionCommittedError(Long.fromNumber(2));
 */
export function transactionCommittedError(txnNumber: Long): EngineError {
  return new EngineError(ErrorCodes.TransactionCommitted, `Transaction with { txnNumber: ${txnNumber.toString()} } has been committed.`);
}

/**
 * TransactionTooOld (225): the session already moved on to a higher `txnNumber`.
 *
 * @example
 * throw transactionTooOldError("retryable write", Long.fromNumber(1), Long.fromNumber(2));
 */
export function transactionTooOldError(what: "transaction" | "retryable write", txnNumber: Long, active: Long): EngineError {
  return new EngineError(
    ErrorCodes.TransactionTooOld,
    what === "transaction"
      ? `Cannot start transaction ${txnNumber.toString()} on session because a newer transaction ${active.toString()} has already started.`
      : `Retryable write with txnNumber ${txnNumber.toString()} is prohibited on session because a newer retryable write with txnNumber ${active.toString()} has already started on this session.`,
  );
}

/**
 * SnapshotUnavailable (246): the collection was dropped or renamed after the transaction's
 * snapshot, so the snapshot's version of it cannot be read.
 *
 * @example
 * throw snapshotUnavailableError("app.todos");
 */
export function snapshotUnavailableError(ns: string): EngineError {
  return new EngineError(
    ErrorCodes.SnapshotUnavailable,
    `Unable to read from a snapshot due to pending collection catalog changes to ${ns}; please retry the operation.`,
    { errorLabels: [TRANSIENT_TRANSACTION_ERROR] },
  );
}

/**
 * OperationNotSupportedInTransaction (263).
 *
 * @example
 * throw notInTransactionError("Cannot run 'count' in a multi-document transaction.");
 */
export function notInTransactionError(message: string): EngineError {
  return new EngineError(ErrorCodes.OperationNotSupportedInTransaction, message);
}
