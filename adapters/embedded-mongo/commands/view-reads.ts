import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { StoredRecord } from "../storage/stored-record.js";
import type { CommandContext } from "./command-context.js";
import { countArgument, documentArgument, flagArgument } from "./command-arguments.js";
import { runAggregation } from "./run-aggregation.js";

/**
 * `find` on a view, rewritten as mongod does into an aggregation on the view:
 * `$match` filter, `$sort`, `$skip`, `$limit`, `$project` after the view's pipeline.
 *
 * @example
 * findOnView(ctx, "paidOrders"); // {cursor: {firstBatch: [...], id, ns: "app.paidOrders"}, ok: 1}
 */
export function findOnView(ctx: CommandContext, name: string): Document {
  const rawLimit = optionNumber(ctx.command["limit"]);
  const limit = rawLimit !== undefined ? Math.abs(Math.trunc(rawLimit)) : 0;
  const skip = countArgument(ctx, "skip") ?? 0;
  const filter = documentArgument(ctx, "filter");
  const sort = documentArgument(ctx, "sort");
  const projection = documentArgument(ctx, "projection");
  const stages: Document[] = [];
  if (filter && Object.keys(filter).length > 0) stages.push({ $match: filter });
  if (sort && Object.keys(sort).length > 0) stages.push({ $sort: sort });
  if (skip > 0) stages.push({ $skip: skip });
  if (limit > 0) stages.push({ $limit: limit });
  if (projection && Object.keys(projection).length > 0) stages.push({ $project: projection });
  const results = runAggregation(ctx, name, stages);
  const batch = ctx.services.cursors.open({
    ns: `${ctx.db}.${name}`,
    source: results[Symbol.iterator](),
    batchSize: countArgument(ctx, "batchSize"),
    singleBatch: flagArgument(ctx, "singleBatch") || (rawLimit !== undefined && rawLimit < 0),
    sessionKey: ctx.session?.cursorKey,
    lsid: ctx.lsid,
    originatingCommand: ctx.command,
  });
  return { cursor: batch, ok: 1 };
}

/**
 * `count` on a view: the number of documents the view yields for `query`, after `skip`/`limit`.
 *
 * @example
 * countOnView(ctx, "paidOrders", {total: {$gt: 10}}, 0, 0); // 3
 */
export function countOnView(ctx: CommandContext, name: string, query: Document, skip: number, limit: number): number {
  const stages: Document[] = [];
  if (Object.keys(query).length > 0) stages.push({ $match: query });
  if (skip > 0) stages.push({ $skip: skip });
  if (limit > 0) stages.push({ $limit: limit });
  stages.push({ $count: "n" });
  const [result] = runAggregation(ctx, name, stages);
  return result ? Number(optionNumber(documentOf(result)["n"]) ?? 0) : 0;
}

/**
 * The documents of a view matching `query` (what `distinct` reads from a view).
 *
 * @example
 * for (const doc of viewDocuments(ctx, "paidOrders", {})) ...
 */
export function viewDocuments(ctx: CommandContext, name: string, query: Document): Document[] {
  return runAggregation(ctx, name, Object.keys(query).length > 0 ? [{ $match: query }] : []).map(documentOf);
}

function documentOf(item: StoredRecord | Document): Document {
  return item instanceof StoredRecord ? item.doc : item;
}
