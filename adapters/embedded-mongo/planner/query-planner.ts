import type { Document } from "bson";
import { bsonEquals, filterFields } from "../query/index.js";
import type { Collation, FieldPredicate } from "../query/index.js";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CollectionData } from "../storage/collection-data.js";
import type { CollectionIndex } from "../storage/collection-index.js";
import { FULL_INTERVAL, includesNull, intersectIntervals, involvesStrings, predicateIntervals } from "./index-bounds.js";
import type { BoundEdge, FieldInterval } from "./index-bounds.js";

/** A contiguous stretch of an index, as per-field edges in tree order (directions applied). */
export interface KeyRange {
  readonly low: readonly BoundEdge[];
  readonly high: readonly BoundEdge[];
}

/** How a query reads its candidate documents. The full filter is applied to every candidate. */
export type QueryPlan =
  | { readonly stage: "EOF" }
  | { readonly stage: "IDHACK"; readonly id: unknown }
  | { readonly stage: "COLLSCAN"; readonly direction: 1 | -1 }
  | {
      readonly stage: "IXSCAN";
      readonly index: CollectionIndex;
      readonly ranges: readonly KeyRange[];
      readonly direction: 1 | -1;
      /** The scan already returns documents in the requested sort order. */
      readonly providesSort: boolean;
      /** Per index field, the intervals scanned (for `explain`'s `indexBounds`). */
      readonly fieldIntervals: readonly (readonly FieldInterval[])[];
    };

export interface PlanRequest {
  readonly filter: Document;
  readonly sort?: Document | undefined;
  /** An index name, a key pattern, or `{$natural: ±1}`. */
  readonly hint?: unknown;
  readonly collation?: Collation | undefined;
}

/** Above this many compound ranges (from `$in` × `$in`), only the first field is bounded. */
const MAX_RANGES = 5000;

/**
 * Chooses how to execute a query: `_id` equality reads the `_id` map (IDHACK); otherwise the index
 * with the best bounds on its leading fields (equality > range), or one that returns the requested
 * sort order; otherwise a collection scan. `hint` forces an index (unknown → BadValue, code 2).
 * The choice is rule-based, not trial-based: predictable for a development database.
 *
 * @example
 * planQuery(users, {filter: {email: "a@b.c"}}).stage; // "IXSCAN" when email is indexed
 */
export function planQuery(collection: CollectionData | undefined, request: PlanRequest): QueryPlan {
  if (!collection) return { stage: "EOF" };
  const predicates = groupByPath(filterFields(request.filter, request.collation !== undefined));
  const sort = sortFields(request.sort);
  const hintNatural = naturalDirection(request.hint);
  if (hintNatural !== undefined) return { stage: "COLLSCAN", direction: hintNatural };
  if (request.hint !== undefined && request.hint !== null && !isEmptyHint(request.hint)) {
    const index = findHintedIndex(collection, request.hint);
    return planIndexScan(index, predicates, sort, request.collation, true)!;
  }
  const sortNatural = naturalDirection(request.sort);
  if (sortNatural !== undefined) return { stage: "COLLSCAN", direction: sortNatural };

  // _id equality: one hash lookup (mongod's IDHACK), unless a collation makes string ids fuzzy.
  for (const predicate of predicates.get("_id") ?? []) {
    if (predicate.kind === "eq" && predicate.value !== null && !(request.collation && involvesStrings(predicate))) {
      return { stage: "IDHACK", id: predicate.value };
    }
  }

  let best: { plan: QueryPlan; score: number; width: number } | undefined;
  for (const index of collection.indexes.values()) {
    if (index.spec.special || index.spec.document["hidden"] === true) continue;
    if (index.spec.partialFilterExpression && !impliesPartialFilter(request.filter, index.spec.partialFilterExpression)) continue;
    const plan = planIndexScan(index, predicates, sort, request.collation, false);
    if (!plan || plan.stage !== "IXSCAN") continue;
    const score = scorePlan(plan);
    const width = index.spec.fields.length;
    if (!best || score > best.score || (score === best.score && width < best.width)) best = { plan, score, width };
  }
  return best?.plan ?? { stage: "COLLSCAN", direction: 1 };
}

function groupByPath(predicates: readonly FieldPredicate[]): Map<string, FieldPredicate[]> {
  const out = new Map<string, FieldPredicate[]>();
  for (const predicate of predicates) {
    const list = out.get(predicate.path);
    if (list) list.push(predicate);
    else out.set(predicate.path, [predicate]);
  }
  return out;
}

function planIndexScan(
  index: CollectionIndex,
  predicates: Map<string, FieldPredicate[]>,
  sort: Array<{ path: string; direction: 1 | -1 }> | undefined,
  collation: Collation | undefined,
  forced: boolean,
): QueryPlan | undefined {
  const collationMatches = sameCollation(collation, index.collation);
  const fieldIntervals: FieldInterval[][] = [];
  let boundedFields = 0;
  for (const field of index.spec.fields) {
    let intervals: FieldInterval[] | undefined;
    for (const predicate of predicates.get(field.path) ?? []) {
      // String bounds are only a superset of the matches when the index orders strings like the
      // query compares them. Exception: a collated index still finds every binary-equal string.
      if (!collationMatches && involvesStrings(predicate) && !(collation === undefined && predicate.kind !== "range")) continue;
      const next = predicateIntervals(predicate);
      // Multikey: keep the first predicate only (intersecting would lose documents).
      if (!intervals) intervals = next;
      else if (!index.multikey) intervals = intersectIntervals(intervals, next);
    }
    if (!intervals || boundedFields < fieldIntervals.length) {
      fieldIntervals.push([FULL_INTERVAL]);
      continue;
    }
    fieldIntervals.push(intervals);
    boundedFields += 1;
    // Lexicographic ranges can only continue past fields bounded to points.
    if (!intervals.every((interval) => interval.point)) {
      for (let i = fieldIntervals.length; i < index.spec.fields.length; i++) fieldIntervals.push([FULL_INTERVAL]);
      break;
    }
  }
  const direction = sortDirection(index, fieldIntervals, sort);
  const providesSort = direction !== undefined && sort !== undefined && sort.length > 0;
  if (!forced && boundedFields === 0 && !providesSort) return undefined;
  // Sparse/partial indexes lack documents whose fields are missing; only use them when the
  // leading field's bounds exclude null (or a partial filter guarantees the documents are there).
  if (!forced && index.spec.sparse && (boundedFields === 0 || fieldIntervals[0]!.some(includesNull))) return undefined;
  const ranges = buildRanges(index, fieldIntervals);
  return {
    stage: "IXSCAN",
    index,
    ranges: direction === -1 ? [...ranges].reverse() : ranges,
    direction: direction ?? 1,
    providesSort,
    fieldIntervals,
  };
}

function scorePlan(plan: Extract<QueryPlan, { stage: "IXSCAN" }>): number {
  let score = 0;
  let allPoints = true;
  for (const intervals of plan.fieldIntervals) {
    if (intervals[0] === FULL_INTERVAL) {
      allPoints = false;
      break;
    }
    const points = intervals.every((interval) => interval.point);
    score += points ? 4 : 2;
    if (!points) allPoints = false;
  }
  if (plan.providesSort) score += 1;
  if (allPoints && plan.index.spec.unique && plan.ranges.length === 1) score += 100;
  return score;
}

/** Index order that yields `sort` (1 forward, -1 backward) or undefined if it cannot. */
function sortDirection(
  index: CollectionIndex,
  fieldIntervals: FieldInterval[][],
  sort: Array<{ path: string; direction: 1 | -1 }> | undefined,
): 1 | -1 | undefined {
  if (!sort || sort.length === 0) return 1;
  if (index.multikey) return undefined;
  const fields = index.spec.fields;
  // Fields pinned to one value by equality neither disturb nor need ordering.
  const pinned = (i: number): boolean => fieldIntervals[i]!.length === 1 && fieldIntervals[i]![0]!.point;
  const remaining = sort.filter((entry) => {
    const i = fields.findIndex((field) => field.path === entry.path);
    return !(i >= 0 && pinned(i));
  });
  if (remaining.length === 0) return 1;
  let start = 0;
  while (start < fields.length && pinned(start) && fields[start]!.path !== remaining[0]!.path) start += 1;
  // Every field before the sorted ones must be a single point, or order breaks between ranges.
  for (let i = 0; i < start; i++) if (!pinned(i)) return undefined;
  let direction: 1 | -1 | undefined;
  for (let k = 0; k < remaining.length; k++) {
    const field = fields[start + k];
    if (!field || field.path !== remaining[k]!.path || field.direction === 0) return undefined;
    const d = (field.direction === remaining[k]!.direction ? 1 : -1) as 1 | -1;
    if (direction === undefined) direction = d;
    else if (direction !== d) return undefined;
  }
  return direction;
}

function buildRanges(index: CollectionIndex, fieldIntervals: FieldInterval[][]): KeyRange[] {
  let combos: FieldInterval[][] = [[]];
  for (const [i, intervals] of fieldIntervals.entries()) {
    const ordered = index.spec.fields[i]!.direction === -1 ? [...intervals].reverse() : intervals;
    if (combos.length * ordered.length > MAX_RANGES) {
      combos = combos.map((combo) => [...combo, FULL_INTERVAL]);
      continue;
    }
    const next: FieldInterval[][] = [];
    for (const combo of combos) for (const interval of ordered) next.push([...combo, interval]);
    combos = next;
  }
  return combos.map((combo) => ({
    low: combo.map((interval, i) => (index.spec.fields[i]!.direction === -1 ? interval.high : interval.low)),
    high: combo.map((interval, i) => (index.spec.fields[i]!.direction === -1 ? interval.low : interval.high)),
  }));
}

function findHintedIndex(collection: CollectionData, hint: unknown): CollectionIndex {
  if (typeof hint === "string") {
    const index = collection.indexes.get(hint);
    if (index) return index;
  } else if (isDocument(hint)) {
    const wanted = Object.entries(hint).map(([path, value]) => `${path}:${typeof value === "string" ? value : optionNumber(value)}`);
    for (const index of collection.indexes.values()) {
      const fields = Object.entries(index.spec.keyPattern).map(
        ([path, value]) => `${path}:${typeof value === "string" ? value : optionNumber(value)}`,
      );
      if (fields.length === wanted.length && fields.every((field, i) => field === wanted[i])) return index;
    }
  }
  throw new EngineError(ErrorCodes.BadValue, "hint provided does not correspond to an existing index");
}

function naturalDirection(spec: unknown): 1 | -1 | undefined {
  if (!isDocument(spec) || !("$natural" in spec)) return undefined;
  return (optionNumber(spec["$natural"]) ?? 1) < 0 ? -1 : 1;
}

function isEmptyHint(hint: unknown): boolean {
  return (isDocument(hint) && Object.keys(hint).length === 0) || hint === "";
}

/** Parses a sort document into paths and directions; `$meta`/`$natural` entries are skipped. */
function sortFields(sort: Document | undefined): Array<{ path: string; direction: 1 | -1 }> | undefined {
  if (!sort) return undefined;
  const out: Array<{ path: string; direction: 1 | -1 }> = [];
  for (const [path, value] of Object.entries(sort)) {
    if (path === "$natural") continue;
    const n = optionNumber(value);
    if (n === undefined) return undefined;
    out.push({ path, direction: n < 0 ? -1 : 1 });
  }
  return out;
}

/**
 * Whether the query guarantees the partial filter: each partial condition appears verbatim in the
 * query's top-level AND, or is `{$exists: true}` implied by an equality/range on a non-null value.
 */
function impliesPartialFilter(filter: Document, partial: Document): boolean {
  const present = rawConditions(filter);
  const implied = groupByPath(filterFields(filter));
  for (const [path, conditions] of rawConditions(partial)) {
    for (const condition of conditions) {
      if ((present.get(path) ?? []).some((candidate) => bsonEquals(candidate, condition))) continue;
      const existsOnly = isDocument(condition) && Object.keys(condition).length === 1 && condition["$exists"] === true;
      const nonNull = (implied.get(path) ?? []).some((predicate) => !predicateIntervals(predicate).some(includesNull));
      if (existsOnly && nonNull) continue;
      return false;
    }
  }
  return true;
}

/** Top-level conditions by path, `$and` flattened. */
function rawConditions(filter: Document): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const visit = (doc: Document): void => {
    for (const [key, value] of Object.entries(doc)) {
      if (key === "$and" && Array.isArray(value)) {
        for (const member of value) if (isDocument(member)) visit(member);
      } else if (!key.startsWith("$")) {
        const list = out.get(key);
        if (list) list.push(value);
        else out.set(key, [value]);
      }
    }
  };
  visit(filter);
  return out;
}

function sameCollation(a: Collation | Document | undefined, b: Collation | Document | undefined): boolean {
  const simple = (c: Collation | Document | undefined): boolean => c === undefined || c["locale"] === "simple";
  if (simple(a) || simple(b)) return simple(a) && simple(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

function isDocument(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
