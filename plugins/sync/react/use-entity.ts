import { useCallback, useSyncExternalStore } from "react";
import type { EntityRead } from "../client/index.js";
import { useSyncDbClient } from "./sync-db-context.js";

/**
 * One entity of the local store (`{data, deleted, seq, isPending}`), or `undefined` while it is
 * not there. Re-renders only when that entity changes.
 *
 * @example
 * const todo = useEntity<{ title: string }>("todos", id);
 * return <span>{todo?.data.title}</span>;
 */
export function useEntity<T extends Record<string, unknown> = Record<string, unknown>>(collection: string, id: string | undefined): EntityRead<T> | undefined {
  const { store } = useSyncDbClient();
  const subscribe = useCallback((listener: () => void) => (id === undefined ? () => undefined : store.subscribeEntity(collection, id, listener)), [store, collection, id]);
  const read = useCallback(() => (id === undefined ? undefined : store.get(collection, id)), [store, collection, id]);
  return useSyncExternalStore(subscribe, read, read) as EntityRead<T> | undefined;
}
