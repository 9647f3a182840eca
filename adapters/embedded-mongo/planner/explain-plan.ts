import type { Document } from "bson";
import { formatValue } from "../storage/duplicate-key-error.js";
import type { BoundEdge, FieldInterval } from "./index-bounds.js";
import type { ExecutionStats } from "./plan-executor.js";
import type { QueryPlan } from "./query-planner.js";

/** Extra stages wrapped around the access path, innermost first. */
export interface PlanDecorations {
  readonly filter: Document;
  readonly sort?: Document | undefined;
  readonly blockingSort: boolean;
  readonly skip?: number | undefined;
  readonly limit?: number | undefined;
  readonly projection?: Document | undefined;
  /** Outermost stage for write/count explains ("UPDATE", "DELETE", "COUNT"). */
  readonly root?: string | undefined;
}

/**
 * Describes a plan as mongod's `explain` does: the access stage (`IDHACK`, `COLLSCAN`, or
 * `FETCH` over `IXSCAN` with `indexName` and `indexBounds`), wrapped in `SORT`, `SKIP`, `LIMIT`,
 * `PROJECTION_DEFAULT` as applicable.
 *
 * @example
 * describePlan(plan, {filter, blockingSort: false}); // {stage: "FETCH", inputStage: {stage: "IXSCAN", indexName: "email_1", ...}}
 */
export function describePlan(plan: QueryPlan, decorations: PlanDecorations): Document {
  const hasFilter = Object.keys(decorations.filter).length > 0;
  let stage: Document;
  switch (plan.stage) {
    case "EOF":
      stage = { stage: "EOF" };
      break;
    case "IDHACK":
      stage = { stage: "IDHACK" };
      break;
    case "COLLSCAN":
      stage = { stage: "COLLSCAN", ...(hasFilter ? { filter: decorations.filter } : {}), direction: plan.direction === 1 ? "forward" : "backward" };
      break;
    case "IXSCAN": {
      const spec = plan.index.spec;
      const indexBounds: Document = {};
      spec.fields.forEach((field, i) => {
        const intervals = plan.fieldIntervals[i] ?? [];
        const ordered = field.direction === -1 ? [...intervals].reverse() : intervals;
        indexBounds[field.path] = ordered.map((interval) => formatInterval(interval, field.direction === -1));
      });
      stage = {
        stage: "FETCH",
        ...(hasFilter ? { filter: decorations.filter } : {}),
        inputStage: {
          stage: "IXSCAN",
          keyPattern: spec.keyPattern,
          indexName: spec.name,
          isMultiKey: plan.index.multikey,
          multiKeyPaths: {},
          isUnique: spec.unique,
          isSparse: spec.sparse,
          isPartial: spec.partialFilterExpression !== undefined,
          indexVersion: 2,
          direction: plan.direction === 1 ? "forward" : "backward",
          indexBounds,
        },
      };
      break;
    }
  }
  if (decorations.blockingSort && decorations.sort) {
    stage = { stage: "SORT", sortPattern: decorations.sort, memLimit: 104857600, type: "simple", inputStage: stage };
  }
  if (decorations.skip) stage = { stage: "SKIP", skipAmount: decorations.skip, inputStage: stage };
  if (decorations.limit) stage = { stage: "LIMIT", limitAmount: decorations.limit, inputStage: stage };
  if (decorations.projection) stage = { stage: "PROJECTION_DEFAULT", transformBy: decorations.projection, inputStage: stage };
  if (decorations.root) stage = { stage: decorations.root, inputStage: stage };
  return stage;
}

/**
 * `executionStats` for a finished run.
 *
 * @example
 * executionStatsOf(stats, 1, winningPlan); // {executionSuccess: true, nReturned: 1, totalKeysExamined: 1, ...}
 */
export function executionStatsOf(stats: ExecutionStats, nReturned: number, executionStages: Document, millis: number): Document {
  return {
    executionSuccess: true,
    nReturned,
    executionTimeMillis: millis,
    totalKeysExamined: stats.keysExamined,
    totalDocsExamined: stats.docsExamined,
    executionStages: { ...executionStages, nReturned, docsExamined: stats.docsExamined, keysExamined: stats.keysExamined },
  };
}

/** `[5, 10)`-style rendering; descending fields list intervals from high to low like mongod. */
function formatInterval(interval: FieldInterval, descending: boolean): string {
  const low = descending ? interval.high : interval.low;
  const high = descending ? interval.low : interval.high;
  const open = (edge: BoundEdge, isStart: boolean): string => {
    if ("all" in edge) return isStart ? "[" : "]";
    const inclusive = edge.side === 0 || (isStart ? edge.side === (descending ? 1 : -1) : edge.side === (descending ? -1 : 1));
    return isStart ? (inclusive ? "[" : "(") : inclusive ? "]" : ")";
  };
  return `${open(low, true)}${renderEdge(low, descending ? "MaxKey" : "MinKey")}, ${renderEdge(high, descending ? "MinKey" : "MaxKey")}${open(high, false)}`;
}

function renderEdge(edge: BoundEdge, unbounded: string): string {
  if ("all" in edge) return unbounded;
  const rendered = formatValue(edge.value);
  return rendered === "Infinity.0" || rendered === "Infinity" ? "inf.0" : rendered === "-Infinity.0" || rendered === "-Infinity" ? "-inf.0" : rendered;
}
