import type { StoreQuery } from "../client/index.js";

const functionIds = new WeakMap<object, number>();
let nextFunctionId = 0;

/**
 * A key that is equal for queries that select the same thing, so an inline options object does not
 * start a new watch on every render. Object filters compare by value; function filters and
 * comparators by identity (wrap them in `useCallback` or hoist them).
 */
export function queryKey(query: StoreQuery | undefined): string {
  if (!query) return "";
  const part = (value: unknown): unknown => {
    if (typeof value !== "function") return value;
    if (!functionIds.has(value)) functionIds.set(value, ++nextFunctionId);
    return `fn#${functionIds.get(value)!}`;
  };
  return JSON.stringify([part(query.filter), part(query.sort), query.includeDeleted === true]);
}
