import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CursorItem } from "../cursors/server-cursor.js";
import type { StoredRecord } from "../storage/stored-record.js";
import type { CommandContext, CommandHandler } from "./command-context.js";
import { countArgument, documentArgument, flagArgument, isPlainDocument } from "./command-arguments.js";
import { explainCommand } from "./explain-command.js";
import { prepareCommandQuery } from "./query-execution.js";
import { splitPipelinePushdown } from "./pipeline-pushdown.js";
import { runRemainingStages } from "./pipeline-stages.js";
import { assertValidCollectionName } from "../storage/namespace.js";
import { openChangeStream } from "../change-streams/open-change-stream.js";
import { currentOpDocuments } from "./current-op-stage.js";

/**
 * `aggregate`: the leading `$match`, `$sort`, `$skip` and `$limit` stages are pushed down to the
 * query planner (so they use indexes, like mongod's `$cursor` stage); the rest runs in the query
 * library's pipeline engine. `countDocuments`' `$group` of `{$sum: 1}` is answered from the planner
 * directly. `cursor` is required unless `explain` is set.
 *
 * @example
 * await engine.runCommand("app", {aggregate: "todos", pipeline: [{$match: {done: false}}, {$group: {_id: "$owner", n: {$sum: 1}}}], cursor: {}});
 */
export const aggregateCommand: CommandHandler = async (ctx) => {
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
    const results = await runRemainingStages(ctx, undefined, ops, pipeline.slice(1));
    return { cursor: ctx.services.cursors.open({ ns: "admin.$cmd.aggregate", source: results[Symbol.iterator](), batchSize }), ok: 1 };
  }
  const collectionName = typeof target === "string" ? target : undefined;
  if (collectionName === undefined && optionNumber(target) !== 1) {
    throw new EngineError(ErrorCodes.InvalidNamespace, "aggregate must name a collection or be 1 for a database-level pipeline");
  }
  if (collectionName !== undefined) assertValidCollectionName(ctx.db, collectionName);
  const results = await runAggregation(ctx, collectionName, pipeline);
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

/** Runs a pipeline and returns its output (records when no stage transformed the documents). */
async function runAggregation(ctx: CommandContext, collectionName: string | undefined, pipeline: Document[]): Promise<CursorItem[]> {
  if (collectionName === undefined) return runRemainingStages(ctx, undefined, [], pipeline);
  const collection = ctx.view.collection(ctx.db, collectionName);
  const { filter, sort, skip, limit, rest } = splitPipelinePushdown(pipeline);
  const query = prepareCommandQuery(ctx, collection, { filter, sort, skip, limit });
  const count = countShape(rest);
  if (count) {
    let n = 0;
    for (const _record of query.run()) n += 1;
    // Like mongod: no input documents, no output document (not a zero count).
    if (n === 0) return [];
    return [count.kind === "group" ? { _id: count.id, [count.field]: n } : { [count.field]: n }];
  }
  const records: StoredRecord[] = [...query.run()];
  if (rest.length === 0) return records;
  return runRemainingStages(ctx, collectionName, records.map((record) => record.doc), rest);
}

/**
 * Recognizes `[{$group: {_id: <constant>, <f>: {$sum: 1}}}]` (what `countDocuments` sends) and
 * `[{$count: "<f>"}]`, which need only the number of matches.
 */
function countShape(stages: Document[]): { kind: "group" | "count"; id?: unknown; field: string } | undefined {
  if (stages.length !== 1) return undefined;
  const stage = stages[0]!;
  if (typeof stage["$count"] === "string" && stage["$count"].length > 0 && !stage["$count"].startsWith("$") && !stage["$count"].includes(".")) {
    return { kind: "count", field: stage["$count"] };
  }
  const group = stage["$group"];
  if (!isPlainDocument(group)) return undefined;
  const entries = Object.entries(group);
  if (entries.length !== 2 || entries[0]![0] !== "_id") return undefined;
  const id = entries[0]![1];
  // Only literal ids: "$field" or expression objects group by value, not into one bucket.
  if ((typeof id === "string" && id.startsWith("$")) || isPlainDocument(id) || Array.isArray(id)) return undefined;
  const [field, accumulator] = entries[1]!;
  if (!isPlainDocument(accumulator) || Object.keys(accumulator).length !== 1 || optionNumber(accumulator["$sum"]) !== 1) return undefined;
  return { kind: "group", id, field };
}
