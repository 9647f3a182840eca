import type { LocalDatabase } from "./local-database.js";
import type { OutboxRow, ServerEntityRecord } from "./records.js";

/** An entity state the server sent (snapshot entity or delta). */
export interface IncomingState {
  readonly collection: string;
  readonly id: string;
  readonly stream: string;
  readonly seq: number;
  readonly deleted: boolean;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** Tombstones of moves and snapshots carry `{id}` alone: no fields worth keeping. */
const bare = (data: Readonly<Record<string, unknown>> | undefined) => data === undefined || Object.keys(data).every((key) => key === "id");

/**
 * Stores an entity state from the server unless what is stored is newer. Entities are states, not
 * events: within a stream the higher seq wins. Seqs of two streams cannot be compared, so a state
 * from another stream is taken when it carries data (the entity moved in), and a bare tombstone
 * from another stream (the old stream saying it moved out) is ignored. Returns whether it changed.
 */
export function applyServerState(database: LocalDatabase, incoming: IncomingState, now: number, force = false): boolean {
  const previous = database.serverState(incoming.collection, incoming.id);
  if (previous && !force) {
    const sameStream = previous.stream === undefined || previous.stream === incoming.stream;
    if (sameStream && incoming.seq < previous.seq) return false;
    if (!sameStream && incoming.deleted && bare(incoming.data)) return false;
  }
  const data = incoming.deleted && bare(incoming.data) ? (previous?.data ?? { id: incoming.id }) : withId(incoming.data, incoming.id);
  const record: { -readonly [K in keyof ServerEntityRecord]: ServerEntityRecord[K] } = {
    collection: incoming.collection,
    id: incoming.id,
    data,
    seq: incoming.seq,
    deleted: incoming.deleted,
    stream: incoming.stream,
  };
  if (incoming.deleted) record.deletedAt = previous?.deleted && previous.deletedAt !== undefined ? previous.deletedAt : now;
  if (previous && sameRecord(previous, record)) return false;
  database.putServerState(record);
  return true;
}

/**
 * The entity's data with its id. What the server sent was decoded for this client alone and is
 * never changed afterwards, so data that already names the entity is kept as it is, not copied.
 */
function withId(data: Readonly<Record<string, unknown>> | undefined, id: string): Readonly<Record<string, unknown>> {
  return data?.id === id ? data : { ...data, id };
}

function sameRecord(a: ServerEntityRecord, b: ServerEntityRecord): boolean {
  return a.seq === b.seq && a.deleted === b.deleted && a.stream === b.stream && JSON.stringify(a.data) === JSON.stringify(b.data);
}

/**
 * The server state after one of this client's mutations was acknowledged at `seq`: the mutation
 * applied to what was known (the delta, when it arrives, brings the server's exact document).
 */
export function applyAck(database: LocalDatabase, row: OutboxRow, seq: number, now: number): void {
  const previous = database.serverState(row.collection, row.id);
  // A delta of this very write (or a later one) may have come first: it is the exact document.
  if (previous && previous.seq >= seq) return;
  const base = previous?.data ?? { id: row.id };
  const deleted = row.operation === "delete";
  database.putServerState({
    collection: row.collection,
    id: row.id,
    data: row.operation === "create" ? { ...row.data, id: row.id } : row.operation === "update" ? { ...base, ...row.data, id: row.id } : base,
    seq,
    deleted,
    ...(previous?.stream === undefined ? {} : { stream: previous.stream }),
    ...(deleted ? { deletedAt: now } : {}),
  });
}

/** Removes tombstones older than `retentionMs` that no pending change still needs. Returns how many. */
export function purgeTombstones(database: LocalDatabase, retentionMs: number, now: number): number {
  if (retentionMs <= 0) return 0;
  const expired = [...database.serverStates()].filter(
    (record) => record.deleted && record.deletedAt !== undefined && now - record.deletedAt >= retentionMs && database.pendingRows(record.collection, record.id).length === 0,
  );
  database.change(() => expired.forEach((record) => database.removeServerState(record.collection, record.id)));
  return expired.length;
}
