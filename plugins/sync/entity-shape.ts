/** One entity as snapshots, lookups and conflict nacks carry it (ARCHITECTURE §4). */
export interface SyncEntity {
  readonly id: string;
  readonly data: Record<string, unknown>;
  readonly seq: number;
  readonly deleted: boolean;
}

/** Fields of a stored document that are bookkeeping, not the entity's data. */
const BOOKKEEPING = new Set(["_id", "__v", "_syncSeq", "_syncStream"]);

/**
 * A stored (lean) document as the client sees its data: the fields with `id` instead of `_id`,
 * without the version key and the sync bookkeeping (its seq and deleted flag travel beside it).
 *
 * @example
 * entityData({ _id: "t1", title: "Milk", _syncSeq: 3, _syncStream: "todos|owner:u1" }); // { id: "t1", title: "Milk" }
 */
export function entityData(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const data: Record<string, unknown> = { id: String(doc._id) };
  for (const [key, value] of Object.entries(doc)) if (!BOOKKEEPING.has(key)) data[key] = value;
  return data;
}

/**
 * The entity of a stored document.
 *
 * @example
 * toEntity({ _id: "t1", title: "Milk", _syncSeq: 3, deleted: false }); // { id: "t1", data: {...}, seq: 3, deleted: false }
 */
export function toEntity(doc: Readonly<Record<string, unknown>>): SyncEntity {
  return { id: String(doc._id), data: entityData(doc), seq: Number(doc._syncSeq ?? 0), deleted: doc.deleted === true };
}
