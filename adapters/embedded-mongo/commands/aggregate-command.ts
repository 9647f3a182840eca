import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandHandler } from "./command-context.js";
import { countArgument, documentArgument, flagArgument, isPlainDocument } from "./command-arguments.js";
import { explainCommand } from "./explain-command.js";
import { runRemainingStages } from "./pipeline-stages.js";
import { runAggregation } from "./run-aggregation.js";
import { assertValidCollectionName } from "../storage/namespace.js";
import { openChangeStream } from "../change-streams/open-change-stream.js";
import { currentOpDocuments } from "./current-op-stage.js";
import { listLocalSessionsDocuments } from "./list-local-sessions-stage.js";

/**
 * `aggregate`: the leading `$match`, `$sort`, `$skip` and `$limit` stages are pushed down to the
 * query planner (so they use indexes, like mongod's `$cursor` stage); the rest runs in the query
 * library's pipeline engine. `countDocuments`' `$group` of `{$sum: 1}` is answered from the planner
 * directly. `cursor` is required unless `explain` is set.
 *
 * @example
 * await engine.runCommand("app", {aggregate: "todos", pipeline: [{$match: {done: false}}, {$group: {_id: "$owner", n: {$sum: 1}}}], cursor: {}});
 */
export const aggregateCommand: CommandHandler = (ctx) => {
  const target = ctx.command["aggregate"];
  const pipelineValue = ctx.command["pipeline"];
  if (!Array.isArray(pipelineValue)) {
    throw new EngineError(ErrorCodes.TypeMismatch, "'pipeline' option must be specified as an array");
  }
  const pipeline = pipelineValue as Document[];
  for (const stage of pipeline) {
    if (!isPlainDocument(stage) || Object.keys(stage).length !== 1) {
      throw new EngineError(40323, "A pipeline stage specification object must contain exactly one field.");
    }
  }
  if (flagArgument(ctx, "explain")) {
    const { explain: _explain, ...inner } = ctx.command;
    void _explain;
    return explainCommand({ ...ctx, name: "explain", command: { explain: inner, verbosity: "queryPlanner" } });
  }
  const cursorOptions = documentArgument(ctx, "cursor");
  if (!cursorOptions) {
    throw new EngineError(ErrorCodes.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const batchSize = countArgument(ctx, "batchSize", cursorOptions);
  if (pipeline[0] && "$changeStream" in pipeline[0]) return openChangeStream(ctx, pipeline, batchSize);
  if (pipeline.some((stage) => "$changeStream" in stage)) {
    throw new EngineError(40602, "$changeStream is only valid as the first stage in a pipeline");
  }
  if (pipeline[0] && "$currentOp" in pipeline[0]) {
    const ops = currentOpDocuments(ctx, pipeline[0]["$currentOp"]);
    const results = runRemainingStages(ctx, undefined, ops, pipeline.slice(1));
    return { cursor: ctx.services.cursors.open({ ns: "admin.$cmd.aggregate", source: results[Symbol.iterator](), batchSize }), ok: 1 };
  }
  if (pipeline[0] && "$listLocalSessions" in pipeline[0]) {
    const sessions = listLocalSessionsDocuments(ctx, pipeline[0]["$listLocalSessions"]);
    const results = runRemainingStages(ctx, undefined, sessions, pipeline.slice(1));
    return { cursor: ctx.services.cursors.open({ ns: `${ctx.db}.$cmd.aggregate`, source: results[Symbol.iterator](), batchSize }), ok: 1 };
  }
  const collectionName = typeof target === "string" ? target : undefined;
  if (collectionName === undefined && optionNumber(target) !== 1) {
    throw new EngineError(ErrorCodes.InvalidNamespace, "aggregate must name a collection or be 1 for a database-level pipeline");
  }
  if (collectionName !== undefined) assertValidCollectionName(ctx.db, collectionName);
  const results = runAggregation(ctx, collectionName, pipeline);
  const ns = collectionName !== undefined ? `${ctx.db}.${collectionName}` : `${ctx.db}.$cmd.aggregate`;
  const batch = ctx.services.cursors.open({
    ns,
    source: results[Symbol.iterator](),
    batchSize,
    sessionKey: ctx.session?.cursorKey,
    lsid: ctx.lsid,
    originatingCommand: ctx.command,
  });
  return { cursor: batch, ok: 1 };
};
