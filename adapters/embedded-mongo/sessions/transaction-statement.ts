import type { Document, Long } from "bson";
import { CursorBatch } from "../cursors/cursor-batch.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { LogicalSession } from "./logical-session.js";
import type { SessionRegistry } from "./session-registry.js";
import { isTransientTransactionCode, TRANSIENT_TRANSACTION_ERROR } from "./transaction-errors.js";
import { assertAllowedInTransaction, readConcernLevel } from "./transaction-rules.js";
import type { Transaction } from "./transaction.js";

/**
 * Checks the transaction fields of a command that carries `autocommit` or `startTransaction`
 * (`autocommit` must be `false`, `startTransaction` only `true`, both need `lsid` and `txnNumber`:
 * InvalidOptions 72 otherwise), applies the transaction command rules (263...), and returns the
 * transaction the command runs in (started by `startTransaction: true`).
 *
 * @example
 * const transaction = openTransactionStatement(sessions, session, txnNumber, "insert", "app", command);
 */
export function openTransactionStatement(
  registry: SessionRegistry,
  session: LogicalSession | undefined,
  txnNumber: Long | undefined,
  name: string,
  db: string,
  command: Document,
): Transaction {
  const autocommit = command["autocommit"];
  const start = command["startTransaction"];
  if (autocommit !== false) {
    throw new EngineError(
      ErrorCodes.InvalidOptions,
      autocommit === undefined ? "Specifying startTransaction requires autocommit: false" : "Specifying autocommit=true is not allowed.",
    );
  }
  if (start !== undefined && start !== true) {
    throw new EngineError(ErrorCodes.InvalidOptions, "Specifying startTransaction=false is not allowed.");
  }
  if (session === undefined) {
    throw new EngineError(ErrorCodes.InvalidOptions, "'autocommit' field requires a session id (lsid) to also be specified");
  }
  if (txnNumber === undefined) {
    throw new EngineError(ErrorCodes.InvalidOptions, "'autocommit' field requires a transaction number to also be specified");
  }
  const starting = start === true;
  assertAllowedInTransaction(name, db, command, starting);
  return registry.transactionFor(session, txnNumber, {
    name,
    starting,
    readConcernLevel: starting ? readConcernLevel(command) : undefined,
  });
}

/**
 * After an in-transaction command returned: a statement that failed aborts the transaction. A
 * transient failure (WriteConflict, snapshot errors) fails the whole command with the
 * `TransientTransactionError` label; other write errors (11000, 121...) stay in `writeErrors`,
 * only the first, since the batch stopped there even when unordered. Cursors the command left
 * open are remembered: they die with the transaction.
 *
 * @example
 * reply = settleTransactionStatement(sessions, transaction, await handler(ctx));
 */
export function settleTransactionStatement(registry: SessionRegistry, transaction: Transaction, reply: Document): Document {
  const failure = transaction.failedStatement;
  if (failure !== undefined) {
    registry.abort(transaction, `an earlier statement failed: ${failure.message}`);
    if (isTransientTransactionCode(failure.code)) throw withTransientLabel(failure);
  }
  const writeErrors = reply["writeErrors"];
  if (Array.isArray(writeErrors) && writeErrors.length > 0) {
    // Statement errors raised before the write (a bad operator, a bad filter) end it too.
    const first = writeErrors[0] as Document;
    registry.abort(transaction, `an earlier statement failed: ${String(first["errmsg"])}`);
    if (writeErrors.length > 1) reply["writeErrors"] = writeErrors.slice(0, 1);
    return reply;
  }
  if (failure !== undefined) return reply;
  const cursor = reply["cursor"];
  if (cursor instanceof CursorBatch && !cursor.id.isZero() && transaction.state === "inProgress") {
    if (!transaction.cursorIds.some((id) => id.equals(cursor.id))) transaction.cursorIds.push(cursor.id);
  }
  return reply;
}

/** Write commands whose batches a transaction always runs ordered: the first failure ends it. */
const BATCH_WRITES: ReadonlySet<string> = new Set(["insert", "update", "delete"]);

/**
 * The command a transaction runs: unordered write batches become ordered, because a failed
 * statement ends the transaction and mongod stops the batch there (`n` counts only the
 * statements before it).
 *
 * @example
 * transactionCommand("insert", {insert: "c", documents, ordered: false}); // {..., ordered: true}
 */
export function transactionCommand(name: string, command: Document): Document {
  return BATCH_WRITES.has(name) && command["ordered"] === false ? { ...command, ordered: true } : command;
}

/**
 * A command of a transaction failed: the transaction is aborted (mongod aborts on any command
 * error inside a transaction) and transient errors get their label.
 *
 * @example
 * throw failTransactionStatement(sessions, transaction, error);
 */
export function failTransactionStatement(registry: SessionRegistry, transaction: Transaction, error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  registry.abort(transaction, `an earlier statement failed: ${message}`);
  return error instanceof EngineError ? withTransientLabel(error) : error;
}

function withTransientLabel(error: EngineError): EngineError {
  if (!isTransientTransactionCode(error.code)) return error;
  const labels = error.extra["errorLabels"];
  if (Array.isArray(labels) && labels.includes(TRANSIENT_TRANSACTION_ERROR)) return error;
  return new EngineError(error.code, error.message, {
    ...error.extra,
    errorLabels: [...(Array.isArray(labels) ? labels : []), TRANSIENT_TRANSACTION_ERROR],
  });
}
