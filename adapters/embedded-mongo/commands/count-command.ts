import type { CommandHandler } from "./command-context.js";
import { countArgument, documentArgument, targetCollection } from "./command-arguments.js";
import { prepareCommandQuery } from "./query-execution.js";
import { countOnView } from "./view-reads.js";

/**
 * `count` (what `estimatedDocumentCount` sends): with an empty query the stored count is returned
 * without touching documents; otherwise the query runs through the planner.
 *
 * @example
 * await engine.runCommand("app", {count: "todos", query: {done: false}}); // {n: 4, ok: 1}
 */
export const countCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  const filter = documentArgument(ctx, "query") ?? {};
  const skip = countArgument(ctx, "skip") ?? 0;
  const limit = countArgument(ctx, "limit") ?? 0;
  if (!collection) return { n: 0, ok: 1 };
  if (collection.view) return { n: countOnView(ctx, name, filter, skip, limit), ok: 1 };
  if (Object.keys(filter).length === 0 && ctx.command["hint"] === undefined) {
    const n = Math.max(0, collection.count - skip);
    return { n: limit > 0 ? Math.min(n, limit) : n, ok: 1 };
  }
  const query = prepareCommandQuery(ctx, collection, { filter, skip, limit });
  let n = 0;
  for (const _record of query.run()) n += 1;
  return { n, ok: 1 };
};
