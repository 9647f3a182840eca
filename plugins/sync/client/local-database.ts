import { entityView, type EntityRead } from "./entity-view.js";
import type { PersistedChange, PersistedTables } from "./persister.js";
import type { ConflictRecord, CursorRecord, OutboxRow, SchemaRecord, ServerEntityRecord } from "./records.js";

type Listener = () => void;

const keyOf = (collection: string, id: string) => `${collection}/${id}`;
const NO_ROWS: readonly OutboxRow[] = [];

/**
 * The client's tables in memory — server states, `_outbox`, `_cursors`, `_conflicts` — and the
 * optimistic view the app reads (server state + pending rows), with listeners per entity, per
 * collection and for any change. Every change runs inside `change()`: listeners hear once per
 * step, and the step's records are handed to the persister together (`takeChanges`).
 */
export class LocalDatabase {
  private readonly server = new Map<string, ServerEntityRecord>();
  private readonly rows = new Map<string, OutboxRow>();
  private readonly rowsByEntity = new Map<string, OutboxRow[]>();
  private readonly cursors = new Map<string, CursorRecord>();
  private readonly conflicts = new Map<string, ConflictRecord>();
  private readonly views = new Map<string, EntityRead>();
  private readonly idsByCollection = new Map<string, Set<string>>();
  private readonly versions = new Map<string, number>();
  private readonly entityListeners = new Map<string, Set<Listener>>();
  private readonly collectionListeners = new Map<string, Set<Listener>>();
  private readonly listeners = new Set<Listener>();
  private changes: PersistedChange[] = [];
  private readonly touchedEntities = new Set<string>();
  private readonly touchedCollections = new Set<string>();
  private touched = false;
  private depth = 0;
  private sortedRows: OutboxRow[] | undefined;
  private conflictList: ConflictRecord[] | undefined;
  private lastOrder = 0;
  /** Outbox counts kept as rows come and go, so the status costs the same with 10 rows or 10,000. */
  private readonly counts = new Map<string, { queued: number; conflict: number; failed: number }>();
  /** Entity → how many of its rows are in conflict or failed (it is blocked while > 0). */
  private readonly blockedRows = new Map<string, number>();

  /** Replaces every table with what the persister loaded (no records are written back). */
  load(tables: PersistedTables): void {
    this.change(() => {
      this.reset();
      for (const record of tables.entities) this.server.set(keyOf(record.collection, record.id), record);
      for (const row of tables._outbox) this.indexRow(row);
      for (const cursor of tables._cursors) this.cursors.set(cursor.stream, cursor);
      for (const conflict of tables._conflicts) this.conflicts.set(conflict.mutationId, conflict);
      for (const record of tables.entities) this.touch(record.collection, record.id);
      for (const row of tables._outbox) this.touch(row.collection, row.id);
      this.lastOrder = Math.max(0, ...tables._outbox.map((row) => row.order));
    });
    this.changes = [];
  }

  /**
   * Applies records another tab wrote (and stored): the same step as a local change for readers
   * and listeners, but nothing to store again.
   */
  applyRemote(changes: readonly PersistedChange[]): void {
    this.change(() => {
      const before = this.changes.length;
      for (const change of changes) {
        switch (change.table) {
          case "entities": {
            if (change.value) this.putServerState(change.value);
            else {
              const slash = change.key.indexOf("/");
              this.removeServerState(change.key.slice(0, slash), change.key.slice(slash + 1));
            }
            break;
          }
          case "_outbox":
            if (change.value) {
              this.putRow(change.value);
              this.lastOrder = Math.max(this.lastOrder, change.value.order);
            } else this.removeRow(change.key);
            break;
          case "_cursors":
            if (change.value) this.putCursor(change.value);
            else this.removeCursor(change.key);
            break;
          case "_conflicts":
            if (change.value) this.putConflict(change.value);
            else this.removeConflict(change.key);
            break;
          case "_meta":
            break;
        }
      }
      this.changes.length = before;
    });
  }

  /** Empties every table (the persister's copy is cleared by the caller). */
  wipe(): void {
    this.change(() => {
      for (const key of [...this.server.keys(), ...this.rowsByEntity.keys()]) {
        const [collection, ...rest] = key.split("/");
        this.touch(collection!, rest.join("/"));
      }
      this.reset();
    });
    this.changes = [];
  }

  private reset(): void {
    this.server.clear();
    this.rows.clear();
    this.rowsByEntity.clear();
    this.cursors.clear();
    this.conflicts.clear();
    this.counts.clear();
    this.blockedRows.clear();
    this.sortedRows = undefined;
    this.conflictList = undefined;
    this.touched = true;
  }

  /** Runs `step`; listeners hear once at the end of the outermost step. */
  change<T>(step: () => T): T {
    this.depth++;
    try {
      return step();
    } finally {
      if (--this.depth === 0) this.notify();
    }
  }

  /** The records changed since the last call, for the persister. */
  takeChanges(): PersistedChange[] {
    const taken = this.changes;
    this.changes = [];
    return taken;
  }

  nextOrder(): number {
    return ++this.lastOrder;
  }

  // --- server states ---

  serverState(collection: string, id: string): ServerEntityRecord | undefined {
    return this.server.get(keyOf(collection, id));
  }

  serverStates(): IterableIterator<ServerEntityRecord> {
    return this.server.values();
  }

  putServerState(record: ServerEntityRecord): void {
    const key = keyOf(record.collection, record.id);
    this.server.set(key, record);
    this.changes.push({ table: "entities", key, value: record });
    this.touch(record.collection, record.id, key);
  }

  removeServerState(collection: string, id: string): void {
    const key = keyOf(collection, id);
    if (!this.server.delete(key)) return;
    this.changes.push({ table: "entities", key });
    this.touch(collection, id);
  }

  // --- _outbox ---

  /** Every outbox row in queue order. */
  outbox(): readonly OutboxRow[] {
    this.sortedRows ??= [...this.rows.values()].sort((a, b) => a.order - b.order);
    return this.sortedRows;
  }

  outboxRow(mutationId: string): OutboxRow | undefined {
    return this.rows.get(mutationId);
  }

  /** The entity's rows in queue order. */
  pendingRows(collection: string, id: string): readonly OutboxRow[] {
    return this.rowsByEntity.get(keyOf(collection, id)) ?? [];
  }

  putRow(row: OutboxRow): void {
    const previous = this.rows.get(row.mutationId);
    if (previous) this.unindexRow(previous);
    this.indexRow(row);
    this.changes.push({ table: "_outbox", key: row.mutationId, value: row });
    this.touch(row.collection, row.id);
  }

  removeRow(mutationId: string): void {
    const row = this.rows.get(mutationId);
    if (!row) return;
    this.unindexRow(row);
    this.changes.push({ table: "_outbox", key: mutationId });
    this.touch(row.collection, row.id);
  }

  private indexRow(row: OutboxRow): void {
    this.rows.set(row.mutationId, row);
    const key = keyOf(row.collection, row.id);
    const list = [...(this.rowsByEntity.get(key) ?? []), row].sort((a, b) => a.order - b.order);
    this.rowsByEntity.set(key, list);
    // A new row at the end of the queue (every mutate) keeps the sorted list: no re-sort.
    const sorted = this.sortedRows;
    if (sorted && (sorted.length === 0 || sorted[sorted.length - 1]!.order < row.order)) sorted.push(row);
    else this.sortedRows = undefined;
    this.count(row, 1);
  }

  private count(row: OutboxRow, delta: 1 | -1): void {
    let counts = this.counts.get(row.collection);
    if (!counts) this.counts.set(row.collection, (counts = { queued: 0, conflict: 0, failed: 0 }));
    counts.queued += delta;
    if (row.status === "queued") return;
    counts[row.status] += delta;
    const key = keyOf(row.collection, row.id);
    const blocked = (this.blockedRows.get(key) ?? 0) + delta;
    if (blocked > 0) this.blockedRows.set(key, blocked);
    else this.blockedRows.delete(key);
  }

  /** Outbox rows per collection (all unacknowledged, in conflict, failed) and how many entities are blocked. */
  outboxCounts(): { readonly collections: ReadonlyMap<string, { readonly queued: number; readonly conflict: number; readonly failed: number }>; readonly blockedEntities: number } {
    return { collections: this.counts, blockedEntities: this.blockedRows.size };
  }

  private unindexRow(row: OutboxRow): void {
    this.count(row, -1);
    this.rows.delete(row.mutationId);
    const key = keyOf(row.collection, row.id);
    const list = (this.rowsByEntity.get(key) ?? []).filter((other) => other.mutationId !== row.mutationId);
    if (list.length === 0) this.rowsByEntity.delete(key);
    else this.rowsByEntity.set(key, list);
    this.sortedRows = undefined;
  }

  // --- _cursors ---

  cursor(stream: string): CursorRecord | undefined {
    return this.cursors.get(stream);
  }

  cursorList(): CursorRecord[] {
    return [...this.cursors.values()];
  }

  putCursor(record: CursorRecord): void {
    this.cursors.set(record.stream, record);
    this.changes.push({ table: "_cursors", key: record.stream, value: record });
    this.touched = true;
  }

  removeCursor(stream: string): void {
    if (!this.cursors.delete(stream)) return;
    this.changes.push({ table: "_cursors", key: stream });
    this.touched = true;
  }

  // --- _conflicts ---

  conflictRecords(): readonly ConflictRecord[] {
    this.conflictList ??= [...this.conflicts.values()].sort((a, b) => a.at - b.at || (this.rows.get(a.mutationId)?.order ?? 0) - (this.rows.get(b.mutationId)?.order ?? 0));
    return this.conflictList;
  }

  conflict(mutationId: string): ConflictRecord | undefined {
    return this.conflicts.get(mutationId);
  }

  putConflict(record: ConflictRecord): void {
    this.conflicts.set(record.mutationId, record);
    this.conflictList = undefined;
    this.changes.push({ table: "_conflicts", key: record.mutationId, value: record });
    this.touched = true;
  }

  removeConflict(mutationId: string): void {
    if (!this.conflicts.delete(mutationId)) return;
    this.conflictList = undefined;
    this.changes.push({ table: "_conflicts", key: mutationId });
    this.touched = true;
  }

  // --- _meta ---

  /** Records the schema version the tables are now in. */
  putSchema(record: SchemaRecord): void {
    this.changes.push({ table: "_meta", key: record.key, value: record });
    this.touched = true;
  }

  // --- the optimistic view ---

  read(collection: string, id: string): EntityRead | undefined {
    const key = keyOf(collection, id);
    const cached = this.views.get(key);
    if (cached !== undefined) return cached;
    const pending = this.rowsByEntity.size === 0 ? NO_ROWS : (this.rowsByEntity.get(key) ?? NO_ROWS);
    const view = entityView(this.server.get(key), pending, id);
    if (view) this.views.set(key, view);
    return view;
  }

  /** Every entity of `collection` (tombstones included), read through the optimistic view. */
  readAll(collection: string): EntityRead[] {
    const ids = this.idsByCollection.get(collection);
    if (!ids) return [];
    return [...ids].map((id) => this.read(collection, id)).filter((view): view is EntityRead => view !== undefined);
  }

  /** Bumped on every change to the collection: cached query results compare it. */
  version(collection: string): number {
    return this.versions.get(collection) ?? 0;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  subscribeEntity(collection: string, id: string, listener: Listener): () => void {
    return addTo(this.entityListeners, keyOf(collection, id), listener);
  }

  subscribeCollection(collection: string, listener: Listener): () => void {
    return addTo(this.collectionListeners, collection, listener);
  }

  private touch(collection: string, id: string, key = keyOf(collection, id)): void {
    this.touchedEntities.add(key);
    this.touchedCollections.add(collection);
    this.touched = true;
  }

  private notify(): void {
    if (!this.touched) return;
    const entities = [...this.touchedEntities];
    const collections = [...this.touchedCollections];
    this.touchedEntities.clear();
    this.touchedCollections.clear();
    this.touched = false;
    for (const key of entities) {
      this.views.delete(key);
      // The record (or a pending row) names its collection and id; a removed one is split from its key.
      const present = this.server.get(key) ?? this.rowsByEntity.get(key)?.[0];
      const slash = present ? -1 : key.indexOf("/");
      const collection = present ? present.collection : key.slice(0, slash);
      let ids = this.idsByCollection.get(collection);
      if (!ids) this.idsByCollection.set(collection, (ids = new Set()));
      if (present) ids.add(present.id);
      else ids.delete(key.slice(slash + 1));
    }
    for (const collection of collections) this.versions.set(collection, this.version(collection) + 1);
    // Listeners run after the tables are consistent; one throwing must not starve the others.
    const calls = [
      ...entities.flatMap((key) => [...(this.entityListeners.get(key) ?? [])]),
      ...collections.flatMap((collection) => [...(this.collectionListeners.get(collection) ?? [])]),
      ...this.listeners,
    ];
    for (const call of calls) {
      try {
        call();
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}

function addTo(map: Map<string, Set<Listener>>, key: string, listener: Listener): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) map.delete(key);
  };
}
