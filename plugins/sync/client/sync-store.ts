import type { EntityRead } from "./entity-view.js";
import type { LocalDatabase } from "./local-database.js";
import type { ConflictRecord, OutboxRow } from "./records.js";
import { runQuery, type StoreQuery } from "./store-query.js";

/**
 * A live query: `getSnapshot()` returns the same array until the collection changes, so it can be
 * handed to React's `useSyncExternalStore(watch.subscribe, watch.getSnapshot)` as is.
 */
export interface StoreWatch<T> {
  getSnapshot(): T;
  subscribe(listener: () => void): () => void;
}

/**
 * The local store the app reads: every synced entity with this client's pending changes applied
 * (`{data, deleted, seq, isPending}`). Reads are synchronous; the returned objects are frozen and
 * stay the same object until that entity changes.
 *
 * @example
 * const todo = db.store.get("todos", id); // { data: { id, title }, deleted: false, seq: 7, isPending: false }
 * const open = db.store.list("todos", { filter: { done: false } });
 * const stop = db.store.subscribeEntity("todos", id, () => render(db.store.get("todos", id)));
 */
export interface SyncStore {
  get(collection: string, id: string): EntityRead | undefined;
  /** Entities of a collection matching `query` (tombstones excluded unless `includeDeleted`). */
  list(collection: string, query?: StoreQuery): readonly EntityRead[];
  /** Ids of `list(collection, query)`. */
  ids(collection: string, query?: StoreQuery): readonly string[];
  /** A live `list`, for `useSyncExternalStore`. */
  watch(collection: string, query?: StoreQuery): StoreWatch<readonly EntityRead[]>;
  /** A live `ids` whose array stays the same object while the ids do. */
  watchIds(collection: string, query?: StoreQuery): StoreWatch<readonly string[]>;
  /** Calls `listener` after any change (entities, outbox, cursors, conflicts). */
  subscribe(listener: () => void): () => void;
  subscribeEntity(collection: string, id: string, listener: () => void): () => void;
  subscribeCollection(collection: string, listener: () => void): () => void;
  /** The `_conflicts` table: conflicts and failed mutations waiting for a decision. */
  listConflicts(): readonly ConflictRecord[];
}

/**
 * The `_outbox` table, read-only: mutations not acknowledged yet, in queue order.
 *
 * @example
 * db.outbox.list().filter((row) => row.status === "failed");
 */
export interface SyncOutbox {
  list(): readonly OutboxRow[];
  count(): number;
  subscribe(listener: () => void): () => void;
}

/** The public store over the client's tables. */
export function storeOf(database: LocalDatabase): SyncStore {
  const watch = <T>(collection: string, compute: () => T, same: (a: T, b: T) => boolean = () => false): StoreWatch<T> => {
    let version = -1;
    let value: T | undefined;
    return {
      getSnapshot() {
        if (version !== database.version(collection) || value === undefined) {
          version = database.version(collection);
          const next = compute();
          if (value === undefined || !same(value, next)) value = next;
        }
        return value;
      },
      subscribe: (listener) => database.subscribeCollection(collection, listener),
    };
  };
  const ids = (collection: string, query?: StoreQuery) => runQuery(database.readAll(collection), query).map((entry) => String(entry.data.id));
  return {
    get: (collection, id) => database.read(collection, id),
    list: (collection, query) => runQuery(database.readAll(collection), query),
    ids,
    watch: (collection, query) => watch(collection, () => runQuery(database.readAll(collection), query)),
    watchIds: (collection, query) => watch(collection, () => ids(collection, query), (a, b) => a.length === b.length && a.every((id, index) => id === b[index])),
    subscribe: (listener) => database.subscribe(listener),
    subscribeEntity: (collection, id, listener) => database.subscribeEntity(collection, id, listener),
    subscribeCollection: (collection, listener) => database.subscribeCollection(collection, listener),
    listConflicts: () => database.conflictRecords(),
  };
}

/** The public outbox over the client's tables. */
export function outboxOf(database: LocalDatabase): SyncOutbox {
  return {
    list: () => database.outbox(),
    count: () => database.outbox().length,
    subscribe: (listener) => database.subscribe(listener),
  };
}

/**
 * The conflicts and failed mutations of a client's store (SPEC §2.8 helper).
 *
 * @example
 * for (const conflict of listConflicts({ store: db.store })) console.log(conflict.code, conflict.entityId);
 */
export function listConflicts({ store }: { store: SyncStore }): readonly ConflictRecord[] {
  return store.listConflicts();
}
