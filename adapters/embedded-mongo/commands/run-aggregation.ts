import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import type { CursorItem } from "../cursors/server-cursor.js";
import type { StoredRecord } from "../storage/stored-record.js";
import type { CommandContext } from "./command-context.js";
import { isPlainDocument } from "./command-arguments.js";
import { prepareCommandQuery } from "./query-execution.js";
import { splitPipelinePushdown } from "./pipeline-pushdown.js";
import { runRemainingStages } from "./pipeline-stages.js";
import { resolveView } from "./view-resolution.js";

/**
 * Runs `pipeline` on a collection (or, with no name, a collection-less `aggregate: 1`) and returns
 * its output: records when no stage transformed the documents. A view is read as its definition's
 * pipeline followed by `pipeline`, on the collection the view (chain) reads, as mongod rewrites it.
 *
 * @example
 * runAggregation(ctx, "orders", [{$match: {paid: true}}, {$group: {_id: "$cust", n: {$sum: 1}}}]);
 */
export function runAggregation(ctx: CommandContext, collectionName: string | undefined, pipeline: readonly Document[]): CursorItem[] {
  if (collectionName === undefined) return runRemainingStages(ctx, undefined, [], pipeline);
  const view = resolveView(ctx, collectionName);
  if (view) return runAggregation(ctx, view.source, [...view.pipeline, ...pipeline]);
  const collection = ctx.view.collection(ctx.db, collectionName);
  const { filter, sort, skip, limit, rest } = splitPipelinePushdown(pipeline as Document[]);
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
