import { EntityMap } from "./entity-map.js";
import { entityView, type EntityRead } from "./entity-view.js";
import type { PersistedChange, PersistedTableName, PersistedTables } from "./persister.js";
import { entityKey, entityOfKey, type ConflictRecord, type CursorRecord, type OutboxRow, type SchemaRecord, type ServerEntityRecord } from "./records.js";

type Listener = () => void;

const NO_ROWS: readonly OutboxRow[] = [];

/** A server state with its view cached: the view of a server state alone depends on nothing else. */
interface ServerSlot {
  readonly record: ServerEntityRecord;
  view?: EntityRead;
}

/**
 * The client's tables in memory — server states, `_outbox`, `_cursors`, `_conflicts` — and the
 * optimistic view the app reads (server state + pending rows), with listeners per entity, per
 * collection and for any change. Every change runs inside `change()`: listeners hear once per
 * step, and the step's records are handed to the persister together (`takeChanges`).
 */
export class LocalDatabase {
  private readonly server = new EntityMap<ServerSlot>();
  private readonly rows = new Map<string, OutboxRow>();
  /** Each entity's pending rows in queue order (an entity with none has no entry). */
  private readonly rowsByEntity = new EntityMap<readonly OutboxRow[]>();
  private readonly cursors = new Map<string, CursorRecord>();
  private readonly conflicts = new Map<string, ConflictRecord>();
  /** Views of entities with pending rows (the others are cached on their server slot). */
  private readonly views = new EntityMap<EntityRead>();
  private readonly versions = new Map<string, number>();
  private readonly entityListeners = new Map<string, Set<Listener>>();
  private readonly collectionListeners = new Map<string, Set<Listener>>();
  private readonly listeners = new Set<Listener>();
  private readonly meta = new Map<string, SchemaRecord>();
  /**
   * The records of the other tables changed since the persister last took them. A record changed
   * many times is written once, with its value when taken; a key no longer in its table is written
   * as removed.
   */
  private readonly dirty = { _outbox: new Set<string>(), _cursors: new Set<string>(), _conflicts: new Set<string>(), _meta: new Set<string>() };
  /** Server slots put since the last take (a superseded one is skipped then), and entities removed. */
  private dirtySlots: ServerSlot[] = [];
  private readonly dirtyRemovals = new EntityMap<true>();
  /** False while records another tab stored are applied: they are not this tab's to write. */
  private recording = true;
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
      for (const record of tables.entities) this.server.set(record.collection, record.id, { record, view: undefined });
      for (const row of tables._outbox) this.indexRow(row);
      for (const cursor of tables._cursors) this.cursors.set(cursor.stream, cursor);
      for (const conflict of tables._conflicts) this.conflicts.set(conflict.mutationId, conflict);
      for (const record of tables._meta ?? []) this.meta.set(record.key, record);
      for (const record of tables.entities) this.touch(record.collection, record.id);
      for (const row of tables._outbox) this.touch(row.collection, row.id);
      this.lastOrder = Math.max(0, ...tables._outbox.map((row) => row.order));
    });
    this.forgetChanges();
  }

  /**
   * Applies records another tab wrote (and stored): the same step as a local change for readers
   * and listeners, but nothing to store again.
   */
  applyRemote(changes: readonly PersistedChange[]): void {
    this.change(() => {
      this.recording = false;
      try {
        this.applyRemoteChanges(changes);
      } finally {
        this.recording = true;
      }
    });
  }

  private applyRemoteChanges(changes: readonly PersistedChange[]): void {
    for (const change of changes) {
      switch (change.table) {
        case "entities": {
          if (change.value) this.putServerState(change.value);
          else {
            const { collection, id } = entityOfKey(change.key);
            this.removeServerState(collection, id);
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
  }

  /** Empties every table (the persister's copy is cleared by the caller). */
  wipe(): void {
    this.change(() => {
      for (const [collection, id] of [...this.server.entries(), ...this.rowsByEntity.entries()]) this.touch(collection, id);
      this.reset();
    });
    this.forgetChanges();
  }

  private reset(): void {
    this.server.clear();
    this.rows.clear();
    this.rowsByEntity.clear();
    this.cursors.clear();
    this.conflicts.clear();
    this.meta.clear();
    this.counts.clear();
    this.blockedRows.clear();
    this.views.clear();
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

  /** Whether records changed since the persister last took them. */
  hasChanges(): boolean {
    return this.dirtySlots.length > 0 || !this.dirtyRemovals.empty || Object.values(this.dirty).some((keys) => keys.size > 0);
  }

  /** The records changed since the last call, each once with its current value, for the persister. */
  takeChanges(): PersistedChange[] {
    const taken: PersistedChange[] = [];
    for (const slot of this.dirtySlots) {
      const { collection, id } = slot.record;
      // Only an entity's current slot is written; one put again or removed since is not.
      if (this.server.get(collection, id) === slot) taken.push({ table: "entities", key: entityKey(collection, id), value: slot.record });
    }
    for (const [collection, id] of this.dirtyRemovals.entries()) if (!this.server.has(collection, id)) taken.push({ table: "entities", key: entityKey(collection, id) });
    for (const key of this.dirty._outbox) taken.push({ table: "_outbox", key, value: this.rows.get(key) });
    for (const key of this.dirty._cursors) taken.push({ table: "_cursors", key, value: this.cursors.get(key) });
    for (const key of this.dirty._conflicts) taken.push({ table: "_conflicts", key, value: this.conflicts.get(key) });
    for (const key of this.dirty._meta) taken.push({ table: "_meta", key, value: this.meta.get(key) });
    this.forgetChanges();
    return taken;
  }

  /** Drops the changed records' marks (nothing is to be written: no persister, or it failed). */
  forgetChanges(): void {
    this.dirtySlots = [];
    this.dirtyRemovals.clear();
    for (const keys of Object.values(this.dirty)) keys.clear();
  }

  private changed(table: Exclude<PersistedTableName, "entities">, key: string): void {
    if (this.recording) this.dirty[table].add(key);
  }

  nextOrder(): number {
    return ++this.lastOrder;
  }

  // --- server states ---

  serverState(collection: string, id: string): ServerEntityRecord | undefined {
    return this.server.get(collection, id)?.record;
  }

  *serverStates(): IterableIterator<ServerEntityRecord> {
    for (const slot of this.server.values()) yield slot.record;
  }

  putServerState(record: ServerEntityRecord): void {
    const slot: ServerSlot = { record, view: undefined };
    this.server.set(record.collection, record.id, slot);
    if (this.recording) this.dirtySlots.push(slot);
    this.touch(record.collection, record.id);
  }

  removeServerState(collection: string, id: string): void {
    if (!this.server.delete(collection, id)) return;
    if (this.recording) this.dirtyRemovals.set(collection, id, true);
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
    return this.rowsByEntity.get(collection, id) ?? NO_ROWS;
  }

  putRow(row: OutboxRow): void {
    const previous = this.rows.get(row.mutationId);
    if (previous) this.unindexRow(previous);
    this.indexRow(row);
    this.changed("_outbox", row.mutationId);
    this.touch(row.collection, row.id);
  }

  removeRow(mutationId: string): void {
    const row = this.rows.get(mutationId);
    if (!row) return;
    this.unindexRow(row);
    this.changed("_outbox", mutationId);
    this.touch(row.collection, row.id);
  }

  private indexRow(row: OutboxRow): void {
    this.rows.set(row.mutationId, row);
    const list = [...(this.rowsByEntity.get(row.collection, row.id) ?? []), row].sort((a, b) => a.order - b.order);
    this.rowsByEntity.set(row.collection, row.id, list);
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
    const key = entityKey(row.collection, row.id);
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
    const list = (this.rowsByEntity.get(row.collection, row.id) ?? []).filter((other) => other.mutationId !== row.mutationId);
    if (list.length === 0) this.rowsByEntity.delete(row.collection, row.id);
    else this.rowsByEntity.set(row.collection, row.id, list);
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
    this.changed("_cursors", record.stream);
    this.touched = true;
  }

  removeCursor(stream: string): void {
    if (!this.cursors.delete(stream)) return;
    this.changed("_cursors", stream);
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
    this.changed("_conflicts", record.mutationId);
    this.touched = true;
  }

  removeConflict(mutationId: string): void {
    if (!this.conflicts.delete(mutationId)) return;
    this.conflictList = undefined;
    this.changed("_conflicts", mutationId);
    this.touched = true;
  }

  // --- _meta ---

  /** Records the schema version the tables are now in. */
  putSchema(record: SchemaRecord): void {
    this.meta.set(record.key, record);
    this.changed("_meta", record.key);
    this.touched = true;
  }

  // --- the optimistic view ---

  read(collection: string, id: string): EntityRead | undefined {
    const slot = this.server.get(collection, id);
    const pending = this.rowsByEntity.empty ? undefined : this.rowsByEntity.get(collection, id);
    if (pending === undefined) return slot && (slot.view ??= entityView(slot.record, NO_ROWS, id));
    let view = this.views.get(collection, id);
    if (view === undefined) this.views.set(collection, id, (view = entityView(slot?.record, pending, id)!));
    return view;
  }

  /**
   * Every entity of `collection` (tombstones included), read through the optimistic view: those
   * the server has, in the order they arrived, then those only this client has (pending creates).
   */
  readAll(collection: string): EntityRead[] {
    const reads: EntityRead[] = [];
    const server = this.server.in(collection);
    if (server) for (const id of server.keys()) reads.push(this.read(collection, id)!);
    const pending = this.rowsByEntity.in(collection);
    if (pending) for (const id of pending.keys()) if (!server?.has(id)) reads.push(this.read(collection, id)!);
    return reads;
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
    return addTo(this.entityListeners, entityKey(collection, id), listener);
  }

  subscribeCollection(collection: string, listener: Listener): () => void {
    return addTo(this.collectionListeners, collection, listener);
  }

  /** After an entity's server state or rows changed: its cached view now, its listeners at the end of the step. */
  private touch(collection: string, id: string): void {
    if (!this.views.empty) this.views.delete(collection, id);
    // Most entities have no listener of their own (a list screen listens to its collection).
    if (this.entityListeners.size > 0) {
      const key = entityKey(collection, id);
      if (this.entityListeners.has(key)) this.touchedEntities.add(key);
    }
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
    for (const collection of collections) this.versions.set(collection, this.version(collection) + 1);
    // Listeners run after the tables are consistent; one throwing must not starve the others.
    const calls: Listener[] = [];
    for (const key of entities) {
      const listening = this.entityListeners.get(key);
      if (listening) calls.push(...listening);
    }
    for (const collection of collections) {
      const listening = this.collectionListeners.get(collection);
      if (listening) calls.push(...listening);
    }
    calls.push(...this.listeners);
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
