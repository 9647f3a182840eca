import type { Document } from "bson";
import { notOnView } from "../storage/storage.js";
import type { CommandContext } from "./command-context.js";

/** What a read of a view becomes: a read of `source` (a collection) through `pipeline` first. */
export interface ResolvedView {
  readonly source: string;
  readonly pipeline: readonly Document[];
}

/**
 * Resolves `name` when it is a view (`undefined` otherwise): follows views defined on views down
 * to the collection and concatenates their pipelines innermost first, as mongod does before it
 * runs a read on a view. Definitions are checked for cycles and depth when created.
 *
 * @example
 * resolveView(ctx, "paidOrders"); // {source: "orders", pipeline: [{$match: {paid: true}}]}
 */
export function resolveView(ctx: CommandContext, name: string): ResolvedView | undefined {
  let view = ctx.view.collection(ctx.db, name)?.view;
  if (!view) return undefined;
  const pipelines: Array<readonly Document[]> = [];
  let source = name;
  while (view) {
    pipelines.unshift(view.pipeline);
    source = view.viewOn;
    view = ctx.view.collection(ctx.db, source)?.view;
  }
  return { source, pipeline: pipelines.flat() };
}

/**
 * Refuses a write command or collection-only command on a view: CommandNotSupportedOnView (166).
 *
 * @example
 * assertNotView(ctx, "paidOrders"); // throws: "Namespace app.paidOrders is a view, not a collection"
 */
export function assertNotView(ctx: CommandContext, name: string): void {
  const collection = ctx.view.collection(ctx.db, name);
  if (collection?.view) throw notOnView(collection.ns);
}
