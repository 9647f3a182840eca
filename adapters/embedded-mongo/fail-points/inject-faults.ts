import { Long } from "bson";
import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import type { ConnectionInfo } from "../commands/command-context.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { EngineServices } from "../engine-services.js";
import { errorLabelsFor, failPointCodeName } from "./error-labels.js";
import { isPlainDocument } from "./fail-point.js";
import { isFailPointExempt } from "./fail-point-registry.js";

/** One command as the fail points see it. */
export interface FaultTarget {
  readonly db: string;
  readonly name: string;
  readonly command: Document;
  readonly connection: ConnectionInfo;
}

/** mongod's error for a `closeConnection` fail (never seen by the client: the socket is gone). */
const CLOSED_BY_FAIL_POINT = 50985;

/** Names of one command (`failCommands: ["isMaster"]` also fails `hello`, as on mongod). */
const ALIASES: ReadonlyMap<string, readonly string[]> = new Map(
  [
    ["hello", "isMaster", "ismaster"],
    ["findAndModify", "findandmodify"],
    ["buildInfo", "buildinfo"],
    ["dbStats", "dbstats"],
    ["collStats", "collstats"],
    ["dropIndexes", "deleteIndexes"],
  ].flatMap((names) => names.map((name) => [name, names] as const)),
);

/** Commands mongod accepts a write concern on: the ones `writeConcernError` can decorate. */
const WRITE_CONCERN_COMMANDS: ReadonlySet<string> = new Set([
  "insert",
  "update",
  "delete",
  "findAndModify",
  "findandmodify",
  "create",
  "drop",
  "dropDatabase",
  "createIndexes",
  "dropIndexes",
  "deleteIndexes",
  "collMod",
  "renameCollection",
  "commitTransaction",
  "abortTransaction",
]);

/**
 * Runs the fail points that act before a command: `failCommand` (block, close the connection,
 * fail with a code and labels), `maxTimeAlwaysTimeOut` and `failGetMoreAfterCursorCheckout`.
 * Called only while some fail point is set. Throws the injected error.
 *
 * @example
 * if (services.failPoints.armed) await injectFaultsBefore(services, {db, name, command, connection});
 */
export async function injectFaultsBefore(services: EngineServices, target: FaultTarget): Promise<void> {
  const { name, command } = target;
  if (isFailPointExempt(name)) return;
  const registry = services.failPoints;
  const data = registry.evaluate("failCommand", (candidate) => selectsCommand(services, candidate, target) && acts(candidate));
  if (data !== undefined) await failCommand(services, data, target);
  if (command["maxTimeMS"] !== undefined && registry.evaluate("maxTimeAlwaysTimeOut", () => true) !== undefined) {
    throw new EngineError(ErrorCodes.MaxTimeMSExpired, "operation exceeded time limit");
  }
  if (name === "getMore") failGetMore(services, target);
}

/**
 * The `writeConcernError` of a `failCommand` selecting this (successful) command, with its
 * labels: mongod runs the command, then reports that its write concern failed.
 *
 * @example
 * reply = addInjectedWriteConcernError(services, target, reply);
 */
export function addInjectedWriteConcernError(services: EngineServices, target: FaultTarget, reply: Document): Document {
  if (isFailPointExempt(target.name) || reply["ok"] !== 1 || !writeConcernApplies(target)) return reply;
  const data = services.failPoints.evaluate(
    "failCommand",
    (candidate) => isPlainDocument(candidate["writeConcernError"]) && selectsCommand(services, candidate, target),
  );
  if (data === undefined) return reply;
  const writeConcernError = data["writeConcernError"] as Document;
  const labels = labelsFor(data, target, undefined, optionNumber(writeConcernError["code"]));
  // A copy: the retryable-write table keeps the reply, and a retry must not see this error again.
  return { ...reply, writeConcernError, ...(labels.length > 0 ? { errorLabels: labels } : {}) };
}

/** mongod's `shouldActivateFailCommandFailPoint`: which commands a `failCommand` data selects. */
function selectsCommand(services: EngineServices, data: Document, target: FaultTarget): boolean {
  const client = services.failPoints.clientOf(target.connection);
  if (client.internal && data["failInternalCommands"] !== true) return false;
  if (typeof data["appName"] === "string" && data["appName"] !== client.appName) return false;
  if (typeof data["namespace"] === "string" && data["namespace"] !== namespaceOf(target)) return false;
  const names = data["failCommands"];
  if (!Array.isArray(names)) return false;
  const aliases = ALIASES.get(target.name) ?? [target.name];
  return names.some((failed) => typeof failed === "string" && aliases.includes(failed));
}

/** A `failCommand` without an error, a block or a close does nothing before the command. */
function acts(data: Document): boolean {
  return data["closeConnection"] === true || data["blockConnection"] === true || integerField(data, "errorCode") !== undefined;
}

/** An integer field as mongod's `bsonExtractIntegerField` reads it (2.5 or "2" is no code). */
function integerField(data: Document, name: string): number | undefined {
  const value = optionNumber(data[name]);
  return value !== undefined && Number.isInteger(value) ? value : undefined;
}

/** setTimeout's ceiling: a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

async function failCommand(services: EngineServices, data: Document, target: FaultTarget): Promise<void> {
  if (data["blockConnection"] === true) {
    const blockTimeMS = integerField(data, "blockTimeMS");
    if (blockTimeMS === undefined) throw new EngineError(ErrorCodes.InvalidOptions, "must specify 'blockTimeMS' when 'blockConnection' is true");
    if (blockTimeMS < 0) throw new EngineError(ErrorCodes.InvalidOptions, "'blockTimeMS' must be non-negative");
    await new Promise((resolve) => setTimeout(resolve, Math.min(blockTimeMS, MAX_TIMER_MS)));
  }
  if (data["closeConnection"] === true) {
    target.connection.close?.();
    throw new EngineError(CLOSED_BY_FAIL_POINT, "Failing command due to 'failCommand' failpoint");
  }
  const code = integerField(data, "errorCode");
  if (code === undefined) return;
  throw injectedError(services, data, target, code, "Failing command via 'failCommand' failpoint");
}

/** After the cursor is found: the cursor dies with the error, as a failed getMore's does. */
function failGetMore(services: EngineServices, target: FaultTarget): void {
  const id = target.command["getMore"];
  if (!(id instanceof Long)) return;
  // mongod selects with failCommand's rules (appName, namespace, failInternalCommands), as for a
  // failCommand naming getMore.
  const data = services.failPoints.evaluate("failGetMoreAfterCursorCheckout", (candidate) => {
    if (!selectsCommand(services, { ...candidate, failCommands: ["getMore"] }, target)) return false;
    try {
      services.cursors.lookup(id);
      return true;
    } catch {
      return false;
    }
  });
  if (data === undefined) return;
  const isChangeStream = isChangeStreamCursor(services, id);
  services.cursors.kill(id);
  const code = integerField(data, "errorCode") ?? ErrorCodes.InternalError;
  throw injectedError(services, data, target, code, "Hit the 'failGetMoreAfterCursorCheckout' failpoint", isChangeStream);
}

function injectedError(
  services: EngineServices,
  data: Document,
  target: FaultTarget,
  code: number,
  message: string,
  isChangeStream?: boolean,
): EngineError {
  const labels = labelsFor(data, target, code, undefined, isChangeStream);
  const codeName = failPointCodeName(code);
  return new EngineError(code, message, {
    ...(codeName !== undefined ? { codeName } : {}),
    ...(labels.length > 0 ? { errorLabels: labels } : {}),
  });
}

/** `data.errorLabels` replaces the computed labels entirely (an empty array removes them). */
function labelsFor(
  data: Document,
  target: FaultTarget,
  code: number | undefined,
  writeConcernCode: number | undefined,
  isChangeStream?: boolean,
): string[] {
  const override = data["errorLabels"];
  if (Array.isArray(override)) return override.filter((label): label is string => typeof label === "string");
  const changeStream = isChangeStream ?? changeStreamCommand(target);
  return errorLabelsFor({ name: target.name, command: target.command, isChangeStream: changeStream }, code, writeConcernCode);
}

/**
 * Whether mongod would label a `failCommand` error of this command as a change stream's: an
 * `aggregate` opening one, yes (its pipeline is known); a `getMore`, no — mongod fails the command
 * before it checks the cursor out, so it does not know the cursor is a change stream, and drivers
 * then do not resume (tests that inject a resumable getMore error give the label themselves).
 * `failGetMoreAfterCursorCheckout` fails after the checkout and passes `isChangeStream`.
 */
function changeStreamCommand(target: FaultTarget): boolean {
  return target.name === "aggregate" && opensChangeStream(target.command);
}

function isChangeStreamCursor(services: EngineServices, id: Long): boolean {
  try {
    const origin = services.cursors.lookup(id).originatingCommand;
    return origin !== undefined && opensChangeStream(origin);
  } catch {
    return false;
  }
}

function opensChangeStream(command: Document): boolean {
  const pipeline = command["pipeline"];
  return Array.isArray(pipeline) && isPlainDocument(pipeline[0]) && "$changeStream" in pipeline[0];
}

/** `db.collection` of the command, `db.$cmd` for database-level commands. */
/** The command's namespace as mongod names it for `data.namespace` (a database-level `aggregate: 1` is `<db>.$cmd.aggregate`). */
function namespaceOf(target: FaultTarget): string {
  const { db, name, command } = target;
  const collection = name === "getMore" ? command["collection"] : command[name];
  if (typeof collection === "string") return `${db}.${collection}`;
  return name === "aggregate" ? `${db}.$cmd.aggregate` : `${db}.$cmd`;
}

function writeConcernApplies(target: FaultTarget): boolean {
  if (WRITE_CONCERN_COMMANDS.has(target.name)) return true;
  if (target.name !== "aggregate") return false;
  const pipeline = target.command["pipeline"];
  const last: unknown = Array.isArray(pipeline) ? pipeline[pipeline.length - 1] : undefined;
  return isPlainDocument(last) && ("$out" in last || "$merge" in last);
}
