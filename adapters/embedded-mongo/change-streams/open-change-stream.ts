import type { Document } from "bson";
import { compilePipeline, equalityKey } from "../query/index.js";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandContext } from "../commands/command-context.js";
import { collationArgument } from "../commands/command-arguments.js";
import { assertValidCollectionName } from "../storage/namespace.js";
import type { Storage } from "../storage/storage.js";
import { awaitDurableEvents } from "./await-durable-events.js";
import { ChangeEventBuilder } from "./change-event.js";
import { scopeCursorNamespace } from "./change-stream-scope.js";
import type { ChangeStreamScope } from "./change-stream-scope.js";
import { ChangeStreamSource } from "./change-stream-source.js";
import type { StartPosition } from "./change-stream-source.js";
import { assertChangeStreamStages, parseChangeStreamSpec } from "./change-stream-spec.js";
import type { ChangeStreamSpec } from "./change-stream-spec.js";
import { encodeResumeToken, previousTimestamp } from "./resume-token.js";
import { nonResumableError } from "./non-resumable-error.js";

/**
 * `aggregate` with a leading `$changeStream` stage: validates the stage, the stages after it and
 * the namespace (MongoDB's rules and codes), finds the start position in the oplog, and opens a
 * tailable awaitData cursor whose first batch holds whatever is already there (the aggregate
 * itself never waits). Every batch carries `postBatchResumeToken`.
 *
 * @example
 * await engine.runCommand("app", {aggregate: "todos", pipeline: [{$changeStream: {}}], cursor: {}});
 * // {cursor: {firstBatch: [], id: <long>, ns: "app.todos", postBatchResumeToken: {_data: "..."}}, ok: 1}
 */
export async function openChangeStream(ctx: CommandContext, pipeline: readonly Document[], batchSize: number | undefined): Promise<Document> {
  if (ctx.command["autocommit"] === false) {
    throw new EngineError(ErrorCodes.OperationNotSupportedInTransaction, "$changeStream cannot run in a multi-document transaction");
  }
  const spec = parseChangeStreamSpec(pipeline[0]?.["$changeStream"]);
  const stages = pipeline.slice(1);
  assertChangeStreamStages(stages);
  const scope = changeStreamScope(ctx.db, ctx.command["aggregate"], spec);
  const watched = scope.level === "collection" ? ctx.services.storage.collection(scope.db, scope.coll) : undefined;
  if (watched?.view) throw new EngineError(ErrorCodes.CommandNotSupportedOnView, `Namespace ${watched.ns} is a view, not a collection`);
  const collation = collationArgument(ctx);
  const compiled = stages.length > 0 ? compilePipeline(stages, collation ? { collation } : {}) : undefined;
  const storage = ctx.services.storage;
  const builder = new ChangeEventBuilder(storage, spec, scope);
  const source = new ChangeStreamSource(storage.oplog, builder, compiled, startPosition(storage, spec, builder));
  const batch = ctx.services.cursors.openTailable({
    ns: scopeCursorNamespace(scope),
    tailable: source,
    batchSize,
    sessionKey: ctx.lsid ? equalityKey(ctx.lsid["id"]) : undefined,
    lsid: ctx.lsid,
    originatingCommand: ctx.command,
  });
  return { cursor: await awaitDurableEvents(ctx.services, batch), ok: 1 };
}

/** The stream's scope from the command's namespace, with mongod's checks (72, 73). */
function changeStreamScope(db: string, target: unknown, spec: ChangeStreamSpec): ChangeStreamScope {
  const collection = typeof target === "string" ? target : undefined;
  if (collection === undefined && optionNumber(target) !== 1) {
    throw new EngineError(ErrorCodes.InvalidNamespace, "aggregate must name a collection or be 1 for a database-level pipeline");
  }
  if (spec.allChangesForCluster && (db !== "admin" || collection !== undefined)) {
    throw new EngineError(
      ErrorCodes.InvalidOptions,
      `A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name; found ${db}.${collection ?? "$cmd.aggregate"}`,
    );
  }
  if (db === "admin" ? !spec.allChangesForCluster : db === "config" || db === "local") {
    throw new EngineError(ErrorCodes.InvalidNamespace, `$changeStream may not be opened on the internal ${db} database`);
  }
  if (spec.allChangesForCluster) return { level: "cluster" };
  if (collection === undefined) return { level: "database", db };
  assertValidCollectionName(db, collection);
  return { level: "collection", db, coll: collection };
}

/**
 * Where reading starts:
 * - `resumeAfter`/`startAfter` an event: after its entry, which must still be in the history
 *   (older → ChangeStreamHistoryLost 286; unknown → ChangeStreamFatalError 280); if that entry
 *   invalidates this stream, its invalidate event is owed first;
 * - `startAfter` an invalidate: after the invalidating entry (a new stream on the namespace);
 * - a high-water mark or `startAtOperationTime`: entries at or after its time (286 when the
 *   history no longer reaches back there);
 * - nothing: entries committed after now.
 */
function startPosition(storage: Storage, spec: ChangeStreamSpec, builder: ChangeEventBuilder): StartPosition {
  const oplog = storage.oplog;
  const trimmed = oplog.trimmedThrough();
  const historyLost = (): EngineError =>
    nonResumableError(ErrorCodes.ChangeStreamHistoryLost, "Resume of change stream was not possible, as the resume point may no longer be in the oplog.");
  const token = spec.startAfter ?? spec.resumeAfter;
  if (token && token.kind !== "highWaterMark") {
    if (trimmed && trimmed.compare(token.ts) >= 0) throw historyLost();
    const [entry, next] = oplog.after(previousTimestamp(token.ts));
    if (!entry || entry.ts.compare(token.ts) !== 0) {
      throw nonResumableError(ErrorCodes.ChangeStreamFatalError, "cannot resume stream; the resume token was not found");
    }
    const encoded = encodeResumeToken(token);
    if (token.kind === "invalidate") return { after: token.ts, token: encoded };
    const owed = builder.eventsFor(entry, undefined, next).invalidates ? [builder.invalidateEvent(entry)] : [];
    return { after: token.ts, owed, token: encoded };
  }
  const from = token?.ts ?? spec.startAtOperationTime;
  if (from === undefined) return { after: storage.clock.current() };
  const after = previousTimestamp(from);
  if (trimmed && trimmed.compare(after) > 0) throw historyLost();
  return { after };
}
