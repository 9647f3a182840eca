import type { Document } from "bson";
import { compileFilter, compileSort } from "../query/index.js";
import type { Collation, Matcher } from "../query/index.js";
import { executePlanThroughOverlay } from "../planner/overlaid-plan-executor.js";
import { executePlan } from "../planner/plan-executor.js";
import type { ExecutionStats } from "../planner/plan-executor.js";
import { planQuery } from "../planner/query-planner.js";
import type { QueryPlan } from "../planner/query-planner.js";
import type { ReadView } from "../sessions/read-view.js";
import type { CollectionData } from "../storage/collection-data.js";
import type { StoredRecord } from "../storage/stored-record.js";
import { collationArgument } from "./command-arguments.js";
import { letVariables } from "./let-variables.js";
import type { CommandContext } from "./command-context.js";

export interface QueryRequest {
  readonly filter: Document;
  readonly sort?: Document | undefined;
  readonly hint?: unknown;
  readonly collation?: Collation | undefined;
  readonly skip?: number | undefined;
  /** 0 or undefined: no limit. */
  readonly limit?: number | undefined;
  /** `let` variables for `$expr`. */
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
}

/** A planned query, ready to run lazily. */
export interface PreparedQuery {
  readonly plan: QueryPlan;
  readonly matcher: Matcher;
  readonly stats: ExecutionStats;
  /** True when the sort could not come from the index (explain shows a SORT stage). */
  readonly blockingSort: boolean;
  /** Matching records in result order, after sort, skip and limit. */
  run(): Generator<StoredRecord, void, undefined>;
}

/**
 * Compiles the filter and sort once (the query library), plans (index or scan), and returns a
 * lazy runner. Sorts the planner cannot satisfy from an index are done in memory; skip and limit
 * are applied last. Every read path (find, count, distinct, update, delete, findAndModify,
 * explain) goes through here, so they all use indexes the same way.
 *
 * `view` is whose data is read: a transaction's view overlays its own writes and its snapshot on
 * what storage yields (see `executePlanThroughOverlay`); without one, storage is read as it is.
 *
 * @example
 * const query = prepareQuery(collection, {filter: {status: "A"}, sort: {created: -1}, limit: 10}, ctx.view);
 * for (const record of query.run()) ...
 */
export function prepareQuery(collection: CollectionData | undefined, request: QueryRequest, view?: ReadView): PreparedQuery {
  const collation = request.collation ?? (collection?.defaultCollation as Collation | undefined);
  const matcher = compileFilter(request.filter, {
    ...(collation ? { collation } : {}),
    ...(request.variables ? { variables: request.variables } : {}),
  });
  const sort = request.sort && Object.keys(request.sort).length > 0 ? request.sort : undefined;
  const comparator = sort && !("$natural" in sort) ? compileSort(sort, collation) : undefined;
  const plan = planQuery(collection, { filter: request.filter, sort, hint: request.hint, collation });
  const stats: ExecutionStats = { keysExamined: 0, docsExamined: 0 };
  const overlay = collection && view ? view.overlayFor(collection) : undefined;
  // Overlay documents join the plan's output out of index order: only an in-memory sort orders them.
  const blockingSort =
    comparator !== undefined && (overlay !== undefined || (!(plan.stage === "IXSCAN" && plan.providesSort) && plan.stage !== "IDHACK"));
  const matches = (doc: Document): boolean => matcher.matches(doc);
  const skip = request.skip ?? 0;
  const limit = request.limit && request.limit > 0 ? request.limit : Infinity;
  return {
    plan,
    matcher,
    stats,
    blockingSort,
    *run() {
      let source: Iterable<StoredRecord> = overlay
        ? executePlanThroughOverlay(plan, collection, matches, stats, overlay)
        : executePlan(plan, collection, matches, stats);
      if (blockingSort) {
        const records = [...source];
        const keyed = records.map((record) => ({ record, key: comparator!.keyOf(record.doc) }));
        keyed.sort((a, b) => comparator!.compareKeys(a.key, b.key));
        source = keyed.map((entry) => entry.record);
      }
      let skipped = 0;
      let returned = 0;
      // Stop as soon as the limit is reached: pulling one more would examine a needless document.
      for (const record of source) {
        if (skipped < skip) {
          skipped += 1;
          continue;
        }
        yield record;
        returned += 1;
        if (returned >= limit) return;
      }
    },
  };
}

/**
 * `prepareQuery` for a command handler: `shape` is what the command parsed itself (filter, sort,
 * skip, limit); `hint` and `collation` come from `source` (the command, or one update/delete
 * statement) and `let` variables from the command, the same way for every command; the data is
 * read through `ctx.view`. A field given in `shape` wins.
 *
 * @example
 * const query = prepareCommandQuery(ctx, collection, {filter, sort, limit: 1});
 * const query = prepareCommandQuery(ctx, collection, {filter: statement.q}, statement);
 */
export function prepareCommandQuery(
  ctx: CommandContext,
  collection: CollectionData | undefined,
  shape: QueryRequest,
  source: Document = ctx.command,
): PreparedQuery {
  return prepareQuery(collection, {
    hint: source["hint"],
    collation: collationArgument(ctx, source),
    variables: letVariables(ctx),
    ...shape,
  }, ctx.view);
}
