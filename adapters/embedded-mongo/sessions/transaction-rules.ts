import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { notInTransactionError } from "./transaction-errors.js";

/** Commands mongod runs inside a multi-document transaction (its transaction allow-list). */
const ALLOWED_IN_TRANSACTION: ReadonlySet<string> = new Set([
  "find",
  "getMore",
  "killCursors",
  "insert",
  "update",
  "delete",
  "findAndModify",
  "findandmodify",
  "aggregate",
  "distinct",
  "create",
  "createIndexes",
  "commitTransaction",
  "abortTransaction",
]);

/** Informational commands: allowed in a transaction, but never as its first operation. */
const INFORMATIONAL: ReadonlySet<string> = new Set(["hello", "isMaster", "ismaster", "buildInfo", "buildinfo", "connectionStatus"]);

/** Commands that end a transaction: they run on `admin` and may carry a write concern. */
export const TRANSACTION_ENDINGS: ReadonlySet<string> = new Set(["commitTransaction", "abortTransaction"]);

/** Commands that write to the collection they name. */
const WRITES: ReadonlySet<string> = new Set(["insert", "update", "delete", "findAndModify", "findandmodify", "create", "createIndexes"]);

/** Aggregation stages a transaction refuses (they write, watch, or report on the server). */
const REFUSED_STAGES: readonly string[] = [
  "$out",
  "$merge",
  "$changeStream",
  "$collStats",
  "$currentOp",
  "$indexStats",
  "$listSessions",
  "$listLocalSessions",
  "$planCacheStats",
];

/** Read concern levels a transaction may start with. */
const TRANSACTION_READ_CONCERNS: ReadonlySet<string> = new Set(["local", "majority", "snapshot"]);

/**
 * Refuses, with mongod's codes, what a multi-document transaction may not do: commands outside
 * the allow-list (`count`, `listCollections`, `listIndexes`, `explain`, drops, renames...:
 * OperationNotSupportedInTransaction 263), informational commands or `killCursors` as the first
 * operation, the `admin`/`config`/`local` databases, writes to `system.*` collections, `$out`,
 * `$merge` and `$changeStream` stages, `explain`; and the generic fields only the first statement
 * (`readConcern`) or the commit/abort (`writeConcern`) may carry (InvalidOptions 72).
 *
 * @example
 * assertAllowedInTransaction("count", "app", {count: "todos"}, false); // throws 263
 */
export function assertAllowedInTransaction(name: string, db: string, command: Document, starting: boolean): void {
  if (!ALLOWED_IN_TRANSACTION.has(name) && !INFORMATIONAL.has(name)) {
    throw notInTransactionError(`Cannot run '${name}' in a multi-document transaction.`);
  }
  if (starting && (INFORMATIONAL.has(name) || name === "killCursors")) {
    throw notInTransactionError(`Cannot run '${name}' as the first operation in a multi-document transaction.`);
  }
  if (TRANSACTION_ENDINGS.has(name)) {
    if (db !== "admin") throw new EngineError(ErrorCodes.Unauthorized, `${name} may only be run against the admin database.`);
    return;
  }
  if (db === "admin" || db === "config" || db === "local") {
    throw notInTransactionError(`Cannot run command against the '${db}' database in a transaction.`);
  }
  const target = command[name];
  if (WRITES.has(name) && typeof target === "string" && target.startsWith("system.")) {
    throw notInTransactionError(`Cannot write to system collection ${db}.${target} within a transaction.`);
  }
  if (name === "aggregate") assertPipelineAllowed(command);
  if (command["writeConcern"] !== undefined) {
    throw new EngineError(ErrorCodes.InvalidOptions, "writeConcern is not allowed within a multi-statement transaction");
  }
  const readConcern = command["readConcern"];
  if (readConcern !== undefined) {
    if (!starting) {
      throw new EngineError(ErrorCodes.InvalidOptions, "Only the first command in a transaction may specify a readConcern");
    }
    const level = readConcernLevel(command);
    if (level !== undefined && !TRANSACTION_READ_CONCERNS.has(level)) {
      throw new EngineError(ErrorCodes.InvalidOptions, `The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction, not '${level}'`);
    }
  }
}

/**
 * The `readConcern.level` of a command, if it names one.
 *
 * @example
 * readConcernLevel({find: "a", readConcern: {level: "snapshot"}}); // "snapshot"
 */
export function readConcernLevel(command: Document): string | undefined {
  const readConcern = command["readConcern"] as Document | undefined;
  const level = readConcern && typeof readConcern === "object" ? readConcern["level"] : undefined;
  return typeof level === "string" ? level : undefined;
}

function assertPipelineAllowed(command: Document): void {
  if (command["explain"] !== undefined && command["explain"] !== false) {
    throw notInTransactionError("Cannot run 'explain' in a multi-document transaction.");
  }
  const pipeline = command["pipeline"];
  if (!Array.isArray(pipeline)) return;
  for (const stage of pipeline) {
    if (typeof stage !== "object" || stage === null) continue;
    for (const refused of REFUSED_STAGES) {
      if (refused in stage) throw notInTransactionError(`${refused} cannot be used in a transaction`);
    }
  }
}
