import { useMemo, useSyncExternalStore } from "react";
import type { EntityRead, StoreQuery, StoreWatch, SyncStore } from "../client/index.js";
import { queryKey } from "./query-key.js";
import { useSyncDbClient } from "./sync-db-context.js";

/** `useQuery`'s options (the store's `StoreQuery`): `filter`, `sort`, `includeDeleted`. */
export type UseQueryOptions = StoreQuery;

/**
 * The store's live query, but the result keeps its identity when a change of the collection left it
 * the same (an entity outside the filter changed): such a change does not re-render.
 */
function stableListWatch(store: SyncStore, collection: string, query: StoreQuery | undefined): StoreWatch<readonly EntityRead[]> {
  const inner = store.watch(collection, query);
  let raw: readonly EntityRead[] | undefined;
  let value: readonly EntityRead[] = [];
  return {
    getSnapshot() {
      const next = inner.getSnapshot();
      if (next === raw) return value;
      // The store keeps each entity's read object until that entity changes: identity says it all.
      if (raw === undefined || next.length !== value.length || next.some((entry, index) => entry !== value[index])) value = next;
      raw = next;
      return value;
    },
    subscribe: inner.subscribe,
  };
}

/**
 * The entities of a collection matching `options` (tombstones left out unless `includeDeleted`),
 * as `{data, deleted, seq, isPending}`. Re-renders when the result changes, not on every change of
 * the collection.
 *
 * @example
 * const open = useQuery<{ title: string; done: boolean }>("todos", { filter: { done: false }, sort: "title" });
 * return <ul>{open.map((todo) => <li key={todo.data.id}>{todo.data.title}</li>)}</ul>;
 */
export function useQuery<T extends Record<string, unknown> = Record<string, unknown>>(collection: string, options?: UseQueryOptions): readonly EntityRead<T>[] {
  const { store } = useSyncDbClient();
  const key = queryKey(options);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the key stands for the options
  const watch = useMemo(() => stableListWatch(store, collection, options), [store, collection, key]);
  return useSyncExternalStore(watch.subscribe, watch.getSnapshot, watch.getSnapshot) as readonly EntityRead<T>[];
}

/**
 * The ids of `useQuery(collection, options)`. The array stays the same object while the ids are
 * the same, so a list that renders one `useEntity` row per id re-renders only when rows come, go or
 * move.
 *
 * @example
 * const ids = useEntityIds("todos", { sort: "title" });
 * return <ul>{ids.map((id) => <TodoRow key={id} id={id} />)}</ul>;
 */
export function useEntityIds(collection: string, options?: UseQueryOptions): readonly string[] {
  const { store } = useSyncDbClient();
  const key = queryKey(options);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the key stands for the options
  const watch = useMemo(() => store.watchIds(collection, options), [store, collection, key]);
  return useSyncExternalStore(watch.subscribe, watch.getSnapshot, watch.getSnapshot);
}
