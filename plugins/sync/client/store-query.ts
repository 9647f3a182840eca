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

/**
 * A total order over field values, so a sort is the same whatever order the entities came in:
 * missing (undefined or null) first, then booleans, numbers (NaN first), strings, and anything
 * else by its JSON text. Mixed types compared with `<` alone answered 1 both ways round.
 */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  const rankA = rank(a);
  const rankB = rank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (rankA === 0) return 0;
  if (rankA === 2 && (Number.isNaN(a) || Number.isNaN(b))) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : 1;
  const [x, y] = rankA === 4 ? [JSON.stringify(a) ?? "", JSON.stringify(b) ?? ""] : [a as number | string | boolean, b as number | string | boolean];
  return x < y ? -1 : x > y ? 1 : 0;
}

function rank(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "boolean") return 1;
  if (typeof value === "number") return 2;
  if (typeof value === "string") return 3;
  return 4;
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
