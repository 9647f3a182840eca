import { compareValues } from "./bson-order.js";
import type { StringComparator } from "./bson-order.js";
import { EngineError } from "../engine-error.js";
import { isDocument } from "./document-path.js";
import type { EvalCtx } from "./expression-types.js";
import { compareNumbers, numericKind } from "./numeric.js";

/**
 * Aggregation truthiness: false, null, missing and numeric zero are false; everything else
 * (including "" and []) is true.
 *
 * @example
 * isTruthy(new Int32(0)); // false
 * isTruthy("");           // true
 */
export function isTruthy(v: unknown): boolean {
  if (v === false || v === null || v === undefined) return false;
  if (v === true) return true;
  if (numericKind(v) !== undefined) return compareNumbers(v, 0) !== 0;
  return true;
}

/**
 * Aggregation comparison: BSON order, except that a missing value sorts below null (so
 * `{$eq: ["$nope", null]}` is false, as in MongoDB).
 *
 * @example
 * aggCompare(undefined, null, undefined); // -1
 */
export function aggCompare(a: unknown, b: unknown, cmp: StringComparator | undefined): number {
  if (a === undefined || b === undefined) {
    if (a === b) return 0;
    const other = a === undefined ? b : a;
    const otherIsMinKey = typeof other === "object" && other !== null && (other as { _bsontype?: unknown })._bsontype === "MinKey";
    const missingFirst = otherIsMinKey ? 1 : -1;
    return a === undefined ? missingFirst : -missingFirst;
  }
  return compareValues(a, b, cmp);
}

/**
 * `"$a.b"` in aggregation: a path over `$$CURRENT` where arrays map the rest of the path over their
 * elements (documents contribute their value, nested arrays recurse, scalars and missing values are
 * dropped); numeric components are field names, never array indexes.
 *
 * @example
 * aggPathValue({ a: [{ b: 1 }, { b: 2 }] }, ["a", "b"], 0); // [1, 2]
 */
export function aggPathValue(value: unknown, parts: readonly string[], i: number): unknown {
  for (; i < parts.length; i++) {
    if (Array.isArray(value)) return mapArrayPath(value, parts, i);
    if (!isDocument(value)) return undefined;
    value = Object.prototype.hasOwnProperty.call(value, parts[i]!) ? value[parts[i]!] : undefined;
  }
  return value;
}

function mapArrayPath(arr: unknown[], parts: readonly string[], i: number): unknown[] {
  const out: unknown[] = [];
  for (const e of arr) {
    if (Array.isArray(e)) out.push(mapArrayPath(e, parts, i));
    else if (isDocument(e)) {
      const v = aggPathValue(e, parts, i);
      if (v !== undefined) out.push(v);
    }
  }
  return out;
}

/**
 * Valid user variable names start with a lowercase letter or a non-ASCII character.
 *
 * @example
 * validateVariableName("total"); // ok; "Total" throws 16867
 */
export function validateVariableName(name: string): void {
  if (!/^[a-z\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*$/.test(name)) {
    throw new EngineError(16867, `'${name}' starts with an invalid character for a user variable name`);
  }
}

/**
 * Binds variables for `$let`, `$map`, `$filter`, `$reduce`: a child scope of the current one.
 *
 * @example
 * const inner = withVars(ctx, { this: element });
 */
export function withVars(c: EvalCtx, bindings: Record<string, unknown>): EvalCtx {
  const vars = Object.assign(Object.create(c.vars) as Record<string, unknown>, bindings);
  return { root: c.root, current: c.current, vars, now: c.now };
}
