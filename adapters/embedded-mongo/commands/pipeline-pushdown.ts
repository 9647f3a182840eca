import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { EngineError } from "../engine-error.js";
import { isPlainDocument } from "./command-arguments.js";

/** The leading stages of a pipeline the query planner runs, and the stages left after them. */
export interface PipelinePushdown {
  readonly filter: Document;
  readonly sort: Document | undefined;
  readonly skip: number;
  /** 0: no limit. */
  readonly limit: number;
  readonly rest: Document[];
}

/**
 * Splits off the prefix `$match* $sort? ($skip|$limit)*` — the shape mongod's planner takes over
 * as its `$cursor` stage — so that `aggregate` and its `explain` use indexes the same way.
 * Consecutive `$match`es are ANDed; a `$skip` after a `$limit` ends the prefix (it would need the
 * limit applied first).
 *
 * @example
 * splitPipelinePushdown([{$match: {a: 1}}, {$sort: {b: 1}}, {$limit: 5}, {$project: {b: 1}}]);
 * // {filter: {a: 1}, sort: {b: 1}, skip: 0, limit: 5, rest: [{$project: {b: 1}}]}
 */
export function splitPipelinePushdown(pipeline: Document[]): PipelinePushdown {
  let position = 0;
  let filter: Document = {};
  let sort: Document | undefined;
  let skip = 0;
  let limit = 0;
  while (position < pipeline.length && isPlainDocument(pipeline[position]!["$match"])) {
    const match = pipeline[position]!["$match"] as Document;
    filter = Object.keys(filter).length === 0 ? match : { $and: [filter, match] };
    position += 1;
  }
  if (position < pipeline.length && isPlainDocument(pipeline[position]!["$sort"])) {
    sort = pipeline[position]!["$sort"] as Document;
    position += 1;
  }
  for (; position < pipeline.length; position++) {
    const stage = pipeline[position]!;
    const n = optionNumber(stage["$skip"] ?? stage["$limit"]);
    if (n === undefined || n < 0 || !Number.isInteger(n)) break;
    if ("$skip" in stage) {
      if (limit > 0) break;
      skip += n;
    } else {
      if (n === 0) throw new EngineError(15958, "the limit must be positive");
      limit = limit > 0 ? Math.min(limit, n) : n;
    }
  }
  return { filter, sort, skip, limit, rest: pipeline.slice(position) };
}
