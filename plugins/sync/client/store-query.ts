import type { EntityRead } from "./entity-view.js";

/**
 * A query over one collection of the local store. `filter` is a predicate on the entity's data or
 * an object of fields that must be equal; `sort` a comparator or a field name (`"-field"` for
 * descending). Tombstones are left out unless `includeDeleted`.
 *
 * @example
 * const open: StoreQuery = { filter: { done: false }, sort: "-created" };
 */
export interface StoreQuery {
  readonly filter?: Readonly<Record<string, unknown>> | ((data: Readonly<Record<string, unknown>>) => boolean);
  readonly sort?: string | ((a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>) => number);
  readonly includeDeleted?: boolean;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

/** The entities of `entries` that match `query`, in its order (by id when it has none, so results are stable). */
export function runQuery(entries: Iterable<EntityRead>, query: StoreQuery = {}): EntityRead[] {
  const { filter, sort, includeDeleted = false } = query;
  const matches = (data: Readonly<Record<string, unknown>>) =>
    filter === undefined ? true : typeof filter === "function" ? filter(data) : Object.entries(filter).every(([field, value]) => data[field] === value);
  const result = [...entries].filter((entry) => (includeDeleted || !entry.deleted) && matches(entry.data));
  const byId = (a: EntityRead, b: EntityRead) => compareValues(a.data.id, b.data.id);
  if (sort === undefined) return result.sort(byId);
  if (typeof sort === "function") return result.sort((a, b) => sort(a.data, b.data) || byId(a, b));
  const descending = sort.startsWith("-");
  const field = descending ? sort.slice(1) : sort;
  return result.sort((a, b) => (descending ? -1 : 1) * compareValues(a.data[field], b.data[field]) || byId(a, b));
}
