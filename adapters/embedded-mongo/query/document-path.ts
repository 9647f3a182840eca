/**
 * True for a value that is an embedded document (a plain object), as opposed to an array, a BSON
 * wrapper (ObjectId, Int32...), a Date or a RegExp.
 *
 * @example
 * isDocument({a: 1});        // true
 * isDocument(new ObjectId()); // false
 */
export function isDocument(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  // Fast path: deserialised documents are plain objects.
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Object.prototype || proto === null) return true;
  if (Array.isArray(v)) return false;
  if ((v as { _bsontype?: unknown })._bsontype !== undefined) return false;
  return !(v instanceof Date || v instanceof RegExp || v instanceof Uint8Array);
}

/**
 * True when a path component is an array index as the server reads them: all digits and written
 * canonically (`"0"`, `"12"`; `"01"` never addresses an array element).
 *
 * @example
 * arrayIndexOf("3");  // 3
 * arrayIndexOf("03"); // -1
 */
export function arrayIndexOf(part: string): number {
  const n = part.length;
  if (n === 0 || n > 15) return -1;
  for (let i = 0; i < n; i++) {
    const c = part.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  if (n > 1 && part.charCodeAt(0) === 48) return -1;
  return Number(part);
}

/**
 * Own-property lookup that never reaches `Object.prototype` (`"constructor"`, `"__proto__"`).
 *
 * @example
 * getOwn({}, "constructor"); // undefined
 */
export function getOwn(obj: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/**
 * Outcome codes shared by the compiled matchers: `NO_MATCH`, `MATCH` (no array position recorded)
 * or a non-negative array position (what the positional `$` operator uses).
 *
 * @example
 * walkPath({ a: 1 }, ["a"], () => MATCH, true) !== NO_MATCH; // true
 */
export const NO_MATCH = -2;
/** See {@link NO_MATCH}. */
export const MATCH = -1;

/**
 * A predicate on one value reached by a path; returns `NO_MATCH`, `MATCH`, or the index of the
 * array element that satisfied it (only `$elemMatch` reports its own index).
 */
export type LeafTest = (v: unknown) => number;

/**
 * Walks `parts` from `doc` exactly as the server's `BSONElementIterator` does and returns the first
 * outcome of `leaf` that matched (`NO_MATCH` if none):
 * - a missing field, or a scalar in the middle of the path, is offered to `leaf` as `undefined`;
 * - arrays in the middle of the path are traversed: embedded documents are searched for the rest of
 *   the path (scalars and nested arrays are skipped), and a numeric component also addresses the
 *   element at that index;
 * - an array at the end of the path is offered element by element (when `expandLeaf`) and then as a
 *   whole; an element reached through an explicit index is not expanded.
 * The recorded position is the outermost implicitly traversed array's index.
 *
 * @example
 * walkPath({a: [{b: 1}, {b: 2}]}, ["a", "b"], (v) => (v === 2 ? MATCH : NO_MATCH), true); // 1
 */
export function walkPath(doc: unknown, parts: readonly string[], leaf: LeafTest, expandLeaf: boolean): number {
  return walkDoc(doc, parts, 0, leaf, expandLeaf, MATCH);
}

function fieldOf(container: unknown, part: string): unknown {
  if (Array.isArray(container)) {
    // Only reachable when a sub-filter is applied to an array element ($elemMatch object form).
    const i = arrayIndexOf(part);
    return i >= 0 ? container[i] : undefined;
  }
  return getOwn(container as Record<string, unknown>, part);
}

function walkDoc(container: unknown, parts: readonly string[], i: number, leaf: LeafTest, expand: boolean, pos: number): number {
  const last = parts.length - 1;
  let cur = container;
  for (;;) {
    const v = fieldOf(cur, parts[i]!);
    if (i === last) return visitLeaf(v, leaf, expand, pos);
    if (Array.isArray(v)) return walkArray(v, parts, i + 1, leaf, expand, pos);
    if (isDocument(v)) {
      cur = v;
      i++;
      continue;
    }
    return outcome(leaf(undefined), pos);
  }
}

function outcome(r: number, pos: number): number {
  if (r === NO_MATCH) return NO_MATCH;
  return pos !== MATCH ? pos : r;
}

function visitLeaf(v: unknown, leaf: LeafTest, expand: boolean, pos: number): number {
  if (expand && Array.isArray(v)) {
    for (let j = 0; j < v.length; j++) {
      const r = leaf(v[j]);
      if (r !== NO_MATCH) return pos !== MATCH ? pos : j;
    }
  }
  return outcome(leaf(v), pos);
}

function walkArray(arr: unknown[], parts: readonly string[], i: number, leaf: LeafTest, expand: boolean, pos: number): number {
  const idx = arrayIndexOf(parts[i]!);
  const atEnd = i === parts.length - 1;
  for (let j = 0; j < arr.length; j++) {
    const e = arr[j];
    if (isDocument(e)) {
      const r = walkDoc(e, parts, i, leaf, expand, pos !== MATCH ? pos : j);
      if (r !== NO_MATCH) return r;
      if (j !== idx) continue;
      // The element is also addressed by the numeric path component (no implicit position).
      const r2 = atEnd ? outcome(leaf(e), pos) : walkDoc(e, parts, i + 1, leaf, expand, pos);
      if (r2 !== NO_MATCH) return r2;
    } else if (j === idx) {
      if (atEnd) {
        const r = outcome(leaf(e), pos);
        if (r !== NO_MATCH) return r;
      } else if (Array.isArray(e)) {
        const r = walkArray(e, parts, i + 1, leaf, expand, pos);
        if (r !== NO_MATCH) return r;
      }
    }
  }
  return NO_MATCH;
}

/**
 * Simple dotted lookup without array traversal except numeric indexes (what `$set`-style paths and
 * aggregation's `$$ROOT.a.b` on non-arrays need). Returns `undefined` when any step is missing.
 *
 * @example
 * getPathValue({a: {b: [5, 6]}}, ["a", "b", "1"]); // 6
 */
export function getPathValue(doc: unknown, parts: readonly string[]): unknown {
  let cur = doc;
  for (const p of parts) {
    if (Array.isArray(cur)) {
      const i = arrayIndexOf(p);
      if (i < 0) return undefined;
      cur = cur[i];
    } else if (isDocument(cur)) {
      cur = getOwn(cur, p);
    } else return undefined;
  }
  return cur;
}
