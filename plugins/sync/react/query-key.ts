import type { StoreQuery } from "../client/index.js";

const functionIds = new WeakMap<object, number>();
let nextFunctionId = 0;

/** Tags values JSON would write as another value (or not at all); a string that starts like a tag is tagged too. */
const TAG = "\u0000";

/**
 * A key that is equal for queries that select the same thing, so an inline options object does not
 * start a new watch on every render. Object filters compare by value; function filters and
 * comparators by identity (wrap them in `useCallback` or hoist them).
 */
export function queryKey(query: StoreQuery | undefined): string {
  if (!query) return "";
  // JSON alone wrote `{a: undefined}` as `{}` and NaN as null (each a filter that matches other
  // entities: the watch of the first kept showing after a switch to the second) and threw on a BigInt.
  function part(this: unknown, key: string, value: unknown): unknown {
    const original = this && typeof this === "object" ? (this as Record<string, unknown>)[key] : value;
    if (typeof original === "function") {
      if (!functionIds.has(original)) functionIds.set(original, ++nextFunctionId);
      return `${TAG}fn#${functionIds.get(original)!}`;
    }
    if (original === undefined) return `${TAG}undefined`;
    if (typeof original === "number" && !Number.isFinite(original)) return `${TAG}${original}`;
    if (typeof original === "bigint") return `${TAG}bigint:${original}`;
    if (typeof original === "symbol") return `${TAG}${String(original)}`;
    if (original instanceof Date) return `${TAG}date:${original.getTime()}`;
    if (typeof original === "string" && original.startsWith(TAG)) return `${TAG}${original}`;
    return value;
  }
  return JSON.stringify([query.filter, query.sort, query.includeDeleted === true], part);
}
