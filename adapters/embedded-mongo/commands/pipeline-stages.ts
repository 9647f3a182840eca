import type { Document } from "bson";
import { runPipeline } from "../query/index.js";
import type { Collation } from "../query/index.js";
import type { CommandContext } from "./command-context.js";
import { collationArgument } from "./command-arguments.js";
import { letVariables } from "./let-variables.js";
import { applyPipelineOutput } from "./pipeline-output.js";
import { prepareQuery } from "./query-execution.js";

/**
 * Runs the stages the planner did not take over through the query library's pipeline engine,
 * resolving `$lookup`/`$unionWith`/`$graphLookup` collections from storage, then applies a final
 * `$out`/`$merge` through the write path (the library only describes those writes).
 *
 * @example
 * runRemainingStages(ctx, "orders", docs, [{$group: {_id: "$cust", n: {$sum: 1}}}]);
 */
export function runRemainingStages(
  ctx: CommandContext,
  collectionName: string | undefined,
  input: Document[],
  stages: readonly Document[],
): Document[] {
  const collection = collectionName !== undefined ? ctx.view.collection(ctx.db, collectionName) : undefined;
  const collation = collationArgument(ctx, ctx.command, collection?.defaultCollation) as Collation | undefined;
  const variables = letVariables(ctx);
  const result = runPipeline(input, stages, {
    resolveCollection: (name: string, db?: string) => documentsOf(ctx, db ?? ctx.db, name),
    ...(collation ? { collation } : {}),
    ...(variables ? { variables } : {}),
  });
  if (result.output) {
    applyPipelineOutput(ctx, result.output);
    return [];
  }
  return result.results;
}

/**
 * A collection's documents as the command sees them (none when it does not exist), read lazily;
 * a view's are its pipeline's output over its source's (`$lookup`/`$unionWith` from a view).
 */
function* documentsOf(ctx: CommandContext, db: string, name: string): Generator<Document, void, undefined> {
  const collection = ctx.view.collection(db, name);
  if (!collection) return;
  const view = collection.view;
  if (view) {
    yield* runPipeline(documentsOf(ctx, db, view.viewOn), view.pipeline, {
      resolveCollection: (other: string, otherDb?: string) => documentsOf(ctx, otherDb ?? db, other),
    }).results;
    return;
  }
  if (!ctx.view.overlayFor(collection)) {
    for (const record of collection.records.values()) yield record.doc;
    return;
  }
  for (const record of prepareQuery(collection, { filter: {} }, ctx.view).run()) yield record.doc;
}
