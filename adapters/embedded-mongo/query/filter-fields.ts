import { Double, MaxKey, MinKey, ObjectId } from "bson";
import { canonicalRank, RANK_BOOL, RANK_DATE, RANK_NULL, RANK_NUMBER, RANK_OBJECTID, RANK_STRING } from "./bson-order.js";
import { isDocument } from "./document-path.js";
import { isQueryOperatorObject } from "./filter.js";
import type { Document } from "./types.js";

/** One end of a range; `inclusive` says whether the bound value itself is in the range. */
export interface RangeBound {
  readonly value: unknown;
  readonly inclusive: boolean;
}

/**
 * A predicate the planner can answer from an index. Every document matching the filter satisfies
 * every predicate returned (they come from top-level AND-ed conditions), so an index scan over any
 * one of them yields a superset of the result; always re-check candidates with the full matcher.
 *
 * - `eq`: the path equals `value` (or an array at the path contains it). `value === null` also
 *   matches documents where the path is missing, so it is only answerable by non-sparse indexes.
 * - `in`: the path equals one of `values` (may include null, same caveat).
 * - `range`: one comparison (`$gt`/`$gte`/`$lt`/`$lte`) with the other end filled in with the end
 *   of the operand's type bracket (queries never match across types). Ranges on the same path come
 *   out separately: intersecting them is only correct when the index is not multikey, because
 *   `{a: {$gt: 1, $lt: 3}}` matches `{a: [0, 5]}`.
 *
 * `collationSensitive` is true when the operand involves strings and the query has a collation:
 * such a predicate can only use an index built with the same collation.
 */
export type FieldPredicate =
  | { readonly path: string; readonly kind: "eq"; readonly value: unknown; readonly collationSensitive: boolean }
  | { readonly path: string; readonly kind: "in"; readonly values: readonly unknown[]; readonly collationSensitive: boolean }
  | { readonly path: string; readonly kind: "range"; readonly min: RangeBound; readonly max: RangeBound; readonly collationSensitive: boolean };

/**
 * Extracts the index-answerable predicates of a filter: equality, `$in` and range conditions on
 * top-level AND-ed paths (including inside `$and`). Regexes, array operands, `$or`, `$not`, `$ne`,
 * `$elemMatch` and other operators are left out (the planner falls back to a scan or another
 * predicate). Pass `hasCollation` when the query carries a non-simple collation.
 *
 * @example
 * filterFields({ status: "A", qty: { $gte: 5 }, $or: [{ x: 1 }] });
 * // [{path: "status", kind: "eq", value: "A", collationSensitive: false},
 * //  {path: "qty", kind: "range", min: {value: 5, inclusive: true},
 * //   max: {value: Infinity, inclusive: true}, collationSensitive: false}]
 */
export function filterFields(filter: Document, hasCollation = false): FieldPredicate[] {
  const out: FieldPredicate[] = [];
  collect(filter, hasCollation, out);
  return out;
}

function collect(filter: Document, coll: boolean, out: FieldPredicate[]): void {
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key === "$and" && Array.isArray(value)) {
      for (const sub of value) if (isDocument(sub)) collect(sub, coll, out);
      continue;
    }
    if (key.startsWith("$")) continue;
    if (isQueryOperatorObject(value)) {
      const ops = value as Document;
      for (const op of Object.keys(ops)) {
        const arg = ops[op];
        if (op === "$eq") pushEq(key, arg, coll, out);
        else if (op === "$in" && Array.isArray(arg)) pushIn(key, arg, coll, out);
        else if (op === "$gt" || op === "$gte" || op === "$lt" || op === "$lte") pushRange(key, op, arg, coll, out);
      }
      continue;
    }
    pushEq(key, value, coll, out);
  }
}

function indexable(v: unknown): boolean {
  if (Array.isArray(v) || v === undefined) return false;
  if (v instanceof RegExp) return false;
  return !(typeof v === "object" && v !== null && (v as { _bsontype?: unknown })._bsontype === "BSONRegExp");
}

function hasString(v: unknown): boolean {
  if (typeof v === "string") return true;
  if (Array.isArray(v)) return v.some(hasString);
  if (isDocument(v)) return Object.values(v).some(hasString);
  return canonicalRank(v) === RANK_STRING;
}

function pushEq(path: string, value: unknown, coll: boolean, out: FieldPredicate[]): void {
  if (!indexable(value)) return;
  out.push({ path, kind: "eq", value, collationSensitive: coll && hasString(value) });
}

function pushIn(path: string, values: unknown[], coll: boolean, out: FieldPredicate[]): void {
  if (!values.every(indexable)) return;
  out.push({ path, kind: "in", values, collationSensitive: coll && values.some(hasString) });
}

/** Inclusive ends of each type bracket the planner can range over. */
function bracketEnds(rank: number): [RangeBound, RangeBound] | undefined {
  switch (rank) {
    case RANK_NUMBER:
      return [{ value: new Double(-Infinity), inclusive: true }, { value: new Double(Infinity), inclusive: true }];
    case RANK_STRING:
      return [{ value: "", inclusive: true }, { value: {}, inclusive: false }];
    case RANK_DATE:
      return [{ value: new Date(-8.64e15), inclusive: true }, { value: new Date(8.64e15), inclusive: true }];
    case RANK_OBJECTID:
      return [{ value: new ObjectId("000000000000000000000000"), inclusive: true }, { value: new ObjectId("ffffffffffffffffffffffff"), inclusive: true }];
    case RANK_BOOL:
      return [{ value: false, inclusive: true }, { value: true, inclusive: true }];
    case RANK_NULL:
      return [{ value: null, inclusive: true }, { value: null, inclusive: true }];
    default:
      return undefined;
  }
}

function pushRange(path: string, op: string, arg: unknown, coll: boolean, out: FieldPredicate[]): void {
  if (!indexable(arg)) return;
  const rank = canonicalRank(arg);
  if (rank === RANK_NULL) {
    // $gte/$lte null mean "is null or missing"; $gt/$lt null match nothing.
    if (op === "$gte" || op === "$lte") out.push({ path, kind: "eq", value: null, collationSensitive: false });
    return;
  }
  if (arg instanceof MinKey || arg instanceof MaxKey) return;
  const ends = bracketEnds(rank);
  if (ends === undefined) return;
  const bound: RangeBound = { value: arg, inclusive: op === "$gte" || op === "$lte" };
  const lower = op === "$gt" || op === "$gte";
  out.push({
    path,
    kind: "range",
    min: lower ? bound : ends[0],
    max: lower ? ends[1] : bound,
    collationSensitive: coll && rank === RANK_STRING,
  });
}
