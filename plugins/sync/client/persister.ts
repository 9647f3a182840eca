import { EntityMap } from "./entity-map.js";
import { entityOfKey, type ConflictRecord, type CursorRecord, type OutboxRow, type SchemaRecord, type ServerEntityRecord } from "./records.js";
import type { SyncHttpChannel } from "./transport.js";

/** The local tables: synced entities (server state) and the reserved `_outbox`, `_cursors`, `_conflicts`. */
export interface PersistedTables {
  readonly entities: readonly ServerEntityRecord[];
  readonly _outbox: readonly OutboxRow[];
  readonly _cursors: readonly CursorRecord[];
  readonly _conflicts: readonly ConflictRecord[];
  /** The schema marker (`{key: "schema", version}`); absent in a database written before it existed. */
  readonly _meta?: readonly SchemaRecord[];
}

/** A table name of `PersistedTables`. */
export type PersistedTableName = keyof PersistedTables;

/**
 * One record written (`value`) or removed (no `value`). Keys: `<collection>/<id>` for entities,
 * the mutation id for `_outbox` and `_conflicts`, the stream for `_cursors`.
 */
export type PersistedChange =
  | { readonly table: "entities"; readonly key: string; readonly value?: ServerEntityRecord }
  | { readonly table: "_outbox"; readonly key: string; readonly value?: OutboxRow }
  | { readonly table: "_cursors"; readonly key: string; readonly value?: CursorRecord }
  | { readonly table: "_conflicts"; readonly key: string; readonly value?: ConflictRecord }
  | { readonly table: "_meta"; readonly key: string; readonly value?: SchemaRecord };

/**
 * Where the client keeps its tables between runs. The client loads everything once at `start()`,
 * then writes each change as records (one per entity, outbox row, cursor or conflict), all the
 * changes of one step in one `write` call — an implementation writes them in one transaction and
 * never rewrites a whole table.
 *
 * @example
 * const persister: SyncPersister = { kind: "memory", load: async () => empty, write: async () => {}, clear: async () => {} };
 */
export interface SyncPersister {
  /** `durable` when records survive a restart of the app (reported as `persistence` in the status). */
  readonly kind: "durable" | "memory";
  load(): Promise<PersistedTables>;
  write(changes: readonly PersistedChange[]): Promise<void>;
  /** Removes every table of this database. */
  clear(): Promise<void>;
  close?(): Promise<void>;
}

/**
 * What a persister factory is told about the database to open: its name and user, and (from
 * `createSyncDb`) the HTTP channel and current token, which an encrypted persister needs to ask
 * the server for key material.
 */
export interface SyncPersisterContext {
  readonly name: string;
  readonly userId: string;
  readonly httpChannel?: SyncHttpChannel;
  readonly getToken?: () => Promise<string | null> | string | null;
}

/** Builds the persister of one user's database. */
export type SyncPersisterFactory = (database: SyncPersisterContext) => SyncPersister | Promise<SyncPersister>;

/**
 * A persister that keeps the tables in memory (`persistence: "memory"`): nothing survives the
 * process. Databases live as long as the factory, so giving the same factory to a second client
 * of the same name and user simulates a restart in tests. The default when no `persisterFactory`
 * is given (each client then gets its own).
 *
 * @example
 * const persisterFactory = createMemoryPersister();
 * const first = createSyncDb({ ...options, persisterFactory });
 * // ... later, the "restarted" app sees the same outbox:
 * const second = createSyncDb({ ...options, persisterFactory });
 */
export function createMemoryPersister(): SyncPersisterFactory {
  const databases = new Map<string, MemoryTables>();
  return ({ name, userId }) => {
    const databaseKey = `${name}\u0000${userId}`;
    const tables = () => {
      let found = databases.get(databaseKey);
      if (!found) databases.set(databaseKey, (found = { entities: new EntityMap(), others: new Map() }));
      return found;
    };
    // Records are copied out (structuredClone) at load, as a real store would deserialise them.
    const copies = <T>(values: Iterable<unknown>) => [...values].map((value) => structuredClone(value) as T);
    const rows = <T>(name: Exclude<PersistedTableName, "entities">) => copies<T>(tables().others.get(name)?.values() ?? []);
    return {
      kind: "memory",
      async load() {
        return { entities: copies(tables().entities.values()), _outbox: rows("_outbox"), _cursors: rows("_cursors"), _conflicts: rows("_conflicts"), _meta: rows("_meta") };
      },
      async write(changes) {
        const { entities, others } = tables();
        for (const change of changes) {
          // Records are never changed in place (each change is a new record), so keeping the
          // reference is safe; load() hands out copies, as a store read back would.
          if (change.table === "entities") {
            if (change.value) entities.set(change.value.collection, change.value.id, change.value);
            else {
              const { collection, id } = entityOfKey(change.key);
              entities.delete(collection, id);
            }
            continue;
          }
          let table = others.get(change.table);
          if (!table) others.set(change.table, (table = new Map()));
          if (change.value === undefined) table.delete(change.key);
          else table.set(change.key, change.value);
        }
      },
      async clear() {
        databases.delete(databaseKey);
      },
    };
  };
}

/** A memory database: entities by collection and id (no key string to hash per record), the other tables by key. */
interface MemoryTables {
  readonly entities: EntityMap<ServerEntityRecord>;
  readonly others: Map<Exclude<PersistedTableName, "entities">, Map<string, unknown>>;
}
