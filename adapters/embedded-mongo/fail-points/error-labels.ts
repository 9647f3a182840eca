import type { Document } from "bson";
import { ErrorCodes } from "../engine-error.js";
import { isTransientTransactionCode, TRANSIENT_TRANSACTION_ERROR } from "../sessions/transaction-errors.js";

export const RETRYABLE_WRITE_ERROR = "RetryableWriteError";
export const RESUMABLE_CHANGE_STREAM_ERROR = "ResumableChangeStreamError";
export const UNKNOWN_TRANSACTION_COMMIT_RESULT = "UnknownTransactionCommitResult";

/**
 * mongod's RetriableError category, by code and official name: the codes the retryable-writes
 * specification lists, which mongod labels `RetryableWriteError` on a retryable write.
 */
const RETRIABLE_CODES: ReadonlyMap<number, string> = new Map([
  [6, "HostUnreachable"],
  [7, "HostNotFound"],
  [89, "NetworkTimeout"],
  [91, "ShutdownInProgress"],
  [189, "PrimarySteppedDown"],
  [262, "ExceededTimeLimit"],
  [9001, "SocketException"],
  [10107, "NotWritablePrimary"],
  [11600, "InterruptedAtShutdown"],
  [11602, "InterruptedDueToReplStateChange"],
  [13435, "NotPrimaryNoSecondaryOk"],
  [13436, "NotPrimaryOrSecondary"],
]);

/**
 * Codes after which a change stream resumes (the change-streams specification's list: the
 * retriable, network and not-primary codes, StaleShardVersion, StaleEpoch, StaleConfig,
 * RetryChangeStream, FailedToSatisfyReadPreference).
 */
const RESUMABLE_CHANGE_STREAM_CODES: ReadonlySet<number> = new Set([...RETRIABLE_CODES.keys(), 63, 150, 13388, 234, 133]);

/** Names of codes a fail point may be asked to raise that the engine itself never does. */
const EXTRA_CODE_NAMES: ReadonlyMap<number, string> = new Map([
  ...RETRIABLE_CODES,
  [63, "StaleShardVersion"],
  [64, "WriteConcernFailed"],
  [100, "UnsatisfiableWriteConcern"],
  [133, "FailedToSatisfyReadPreference"],
  [150, "StaleEpoch"],
  [234, "RetryChangeStream"],
  [13388, "StaleConfig"],
]);

/** The official name of a code raised by a fail point (`undefined`: let EngineError name it). */
export function failPointCodeName(code: number): string | undefined {
  return EXTRA_CODE_NAMES.get(code);
}

export function isRetriableCode(code: number): boolean {
  return RETRIABLE_CODES.has(code);
}

/** What of a command decides its error labels. */
export interface LabelledCommand {
  readonly name: string;
  readonly command: Document;
  /** For `aggregate`/`getMore`: whether the command is (or continues) a change stream. */
  readonly isChangeStream: boolean;
}

/**
 * The labels mongod's `ErrorLabelBuilder` puts on a failed command (or on a successful one that
 * carries a write concern error): `TransientTransactionError` for a transaction statement failing
 * with a transient code, `RetryableWriteError` for a retryable write or a commit/abort failing
 * with a retriable code, `UnknownTransactionCommitResult` for a commit that failed in a way that
 * leaves its outcome unknown, `ResumableChangeStreamError` for a change stream's aggregate or
 * getMore failing with a resumable code.
 *
 * @example
 * errorLabelsFor({name: "insert", command: {insert: "c", txnNumber: 1n}, isChangeStream: false}, 91, undefined);
 * // ["RetryableWriteError"]
 */
export function errorLabelsFor(what: LabelledCommand, code: number | undefined, writeConcernCode: number | undefined): string[] {
  const { name, command } = what;
  const inSession = command["txnNumber"] !== undefined;
  const inTransaction = inSession && command["autocommit"] !== undefined;
  const commitOrAbort = name === "commitTransaction" || name === "abortTransaction";
  const labels: string[] = [];
  if (inTransaction && code !== undefined) {
    const transient = commitOrAbort
      ? code === ErrorCodes.NoSuchTransaction && writeConcernCode === undefined
      : isTransientTransactionCode(code) || isRetriableCode(code);
    if (transient) labels.push(TRANSIENT_TRANSACTION_ERROR);
  }
  const retriable = (code !== undefined && isRetriableCode(code)) || (writeConcernCode !== undefined && isRetriableCode(writeConcernCode));
  if (retriable && ((inSession && !inTransaction) || (inTransaction && commitOrAbort))) labels.push(RETRYABLE_WRITE_ERROR);
  if (name === "commitTransaction" && inTransaction) {
    const unknownOutcome =
      retriable || writeConcernCode !== undefined || code === ErrorCodes.MaxTimeMSExpired || code === 64 || code === 100;
    if (unknownOutcome) labels.push(UNKNOWN_TRANSACTION_COMMIT_RESULT);
  }
  if (what.isChangeStream && code !== undefined && !labels.includes(RETRYABLE_WRITE_ERROR) && RESUMABLE_CHANGE_STREAM_CODES.has(code)) {
    labels.push(RESUMABLE_CHANGE_STREAM_ERROR);
  }
  return labels;
}
