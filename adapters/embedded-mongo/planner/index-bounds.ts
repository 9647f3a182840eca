import type { FieldPredicate } from "../query/index.js";
import { canonicalRank, compareBson } from "../query/index.js";
import type { Collation } from "../query/index.js";

/**
 * One end of an interval over a single field, in *value* order:
 * - `{value, side: -1}` sits just before `value` (an inclusive low or exclusive high end),
 * - `{value, side: 1}` just after it (exclusive low, inclusive high),
 * - `{value, side: 0}` is the value itself (a point, used for equality prefixes),
 * - `{all: -1 | 1}` is before / after every value (an unbounded field).
 */
export type BoundEdge = { readonly value: unknown; readonly side: -1 | 0 | 1 } | { readonly all: -1 | 1 };

/** A closed/open interval of one field's values, low ≤ high in value order. */
export interface FieldInterval {
  readonly low: BoundEdge;
  readonly high: BoundEdge;
  /** Both ends are the same value (equality / `$in` member). */
  readonly point: boolean;
}

export const FULL_INTERVAL: FieldInterval = { low: { all: -1 }, high: { all: 1 }, point: false };

/**
 * Compares a key value to an edge in value order: negative when the value sorts before the edge.
 * Never 0 for non-point edges, so range scans need no separate inclusivity flags.
 */
export function compareToEdge(value: unknown, edge: BoundEdge, collation: Collation | undefined): number {
  if ("all" in edge) return -edge.all;
  const c = compareBson(value, edge.value, collation);
  return c !== 0 ? c : -edge.side;
}

/**
 * The intervals one planner predicate (from the query library's `filterFields`) allows: a point
 * per equality/`$in` value, or one range whose open end the library already closed at its type
 * bracket (`{$gt: 5}` stops at the end of the numbers, never reaching strings).
 *
 * @example
 * predicateIntervals({path: "n", kind: "eq", value: 5, collationSensitive: false}); // [[5, 5]]
 */
export function predicateIntervals(predicate: FieldPredicate): FieldInterval[] {
  switch (predicate.kind) {
    case "eq":
      return [pointInterval(predicate.value)];
    case "in": {
      const sorted = [...predicate.values].sort((a, b) => compareBson(a, b));
      const distinct = sorted.filter((value, i) => i === 0 || compareBson(value, sorted[i - 1]) !== 0);
      return distinct.map(pointInterval);
    }
    case "range":
      return [
        {
          low: { value: predicate.min.value, side: predicate.min.inclusive ? -1 : 1 },
          high: { value: predicate.max.value, side: predicate.max.inclusive ? 1 : -1 },
          point: false,
        },
      ];
  }
}

function pointInterval(value: unknown): FieldInterval {
  return { low: { value, side: 0 }, high: { value, side: 0 }, point: true };
}

/**
 * Intersection of two sorted, non-overlapping interval lists. Only valid on non-multikey indexes:
 * `{a: {$gt: 1, $lt: 3}}` matches `{a: [0, 5]}` although no element lies in (1, 3).
 */
export function intersectIntervals(a: readonly FieldInterval[], b: readonly FieldInterval[]): FieldInterval[] {
  const out: FieldInterval[] = [];
  for (const x of a) {
    for (const y of b) {
      const low = edgeOrder(x.low, y.low) >= 0 ? x.low : y.low;
      const high = edgeOrder(x.high, y.high) <= 0 ? x.high : y.high;
      const order = edgeOrder(low, high);
      if (order < 0 || (order === 0 && x.point && y.point)) out.push({ low, high, point: x.point && y.point });
    }
  }
  return out;
}

/** Orders two edges in value order (0 only for the same position). */
function edgeOrder(a: BoundEdge, b: BoundEdge): number {
  if ("all" in a || "all" in b) {
    const pa = "all" in a ? a.all * 2 : 0;
    const pb = "all" in b ? b.all * 2 : 0;
    return pa - pb;
  }
  const c = compareBson(a.value, b.value);
  return c !== 0 ? c : a.side - b.side;
}

/** Whether an interval admits null (which is also how missing fields are keyed). */
export function includesNull(interval: FieldInterval): boolean {
  const NULL_RANK = 5;
  const rankOf = (edge: BoundEdge): number => ("all" in edge ? edge.all * Infinity : canonicalRank(edge.value));
  return rankOf(interval.low) <= NULL_RANK && rankOf(interval.high) >= NULL_RANK;
}

/** Whether a predicate compares strings (then the index and query collations matter). */
export function involvesStrings(predicate: FieldPredicate): boolean {
  const values =
    predicate.kind === "eq" ? [predicate.value] : predicate.kind === "in" ? predicate.values : [predicate.min.value, predicate.max.value];
  return values.some(hasString);
}

function hasString(value: unknown): boolean {
  if (typeof value === "string") return true;
  if (Array.isArray(value)) return value.some(hasString);
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).some(hasString);
  }
  return (value as { _bsontype?: string } | null)?._bsontype === "BSONSymbol";
}
