import type { RequestUser } from "../../contracts/request-user.js";
import { EntityJsonWriter } from "./entity-json.js";
import { toEntity, type SyncEntity } from "./entity-shape.js";
import { frontierOf } from "./sequencing.js";
import type { SyncBookkeeping } from "./sync-bookkeeping.js";
import type { SyncedCollection } from "./synced-collections.js";

/**
 * `limit` of a snapshot page when the query leaves it out (ARCHITECTURE §4).
 *
 * @example
 * GET /sync/snapshot?collection=todos            // up to SNAPSHOT_DEFAULT_LIMIT (200) entities
 */
export const SNAPSHOT_DEFAULT_LIMIT = 200;
/**
 * The largest `limit` a snapshot query may ask for; more is a 400.
 *
 * @example
 * GET /sync/snapshot?collection=todos&limit=1000 // the most one page carries
 */
export const SNAPSHOT_MAX_LIMIT = 1000;

/** One page of a stream as `GET /sync/snapshot` answers it (ARCHITECTURE §4). */
export interface SnapshotPage {
  readonly stream: string;
  readonly entities: SyncEntity[];
  /** Pass it back as `cursor` for the next page; every seq at or below it has been sent. */
  readonly cursor: number;
  readonly hasMore: boolean;
  /** The stream's committed frontier when this page was read: no page ever carries a seq above it. */
  readonly frontierSeq: number;
}

/** A page as the server reads it: each entity already JSON text, so the response is written without decoding. */
export interface SnapshotPageBytes extends Omit<SnapshotPage, "entities"> {
  /** Each entity's JSON text (`{id, data, seq, deleted}`), in seq order. */
  readonly entities: readonly Uint8Array[];
}

/**
 * Reads one page of a stream after `cursor`, in seq order, bounded by the stream's frontier:
 * the counter is read first, and since seqs of a stream commit in order, every write at or
 * below it is visible to the query that follows — so a client that pages by `cursor` and
 * applies entities in order never misses a committed write and never gets one twice, however
 * writers interleave (docs/decisions.md, "Sync ordering"). Deleted documents come as entities
 * with `deleted: true`; documents that moved out of the stream come as tombstones the same way.
 * Documents are read as raw BSON and written straight to JSON (`EntityJsonWriter`).
 *
 * @example
 * const page = await readSnapshot(bookkeeping, todos, "todos|owner:u1", 0, 200, {});
 * res.end(snapshotBody(page)); // {"stream":..,"entities":[{"id":..,"data":{..},"seq":1,"deleted":false}],"cursor":..,"hasMore":..,"frontierSeq":..}
 */
export async function readSnapshot(
  bookkeeping: SyncBookkeeping,
  collection: SyncedCollection,
  stream: string,
  cursor: number,
  limit: number,
  restriction: Record<string, unknown>,
): Promise<SnapshotPageBytes> {
  const { seq: frontierSeq, tombstones: hasTombstones } = await frontierOf(bookkeeping, stream);
  const range = { $gt: cursor, $lte: frontierSeq };
  if (cursor >= frontierSeq) return { stream, entities: [], cursor: Math.max(cursor, 0), hasMore: false, frontierSeq };
  // One more than the page from each source tells whether more remain within the frontier; one
  // batch each (no getMore round trip), and no tombstone query for a stream nothing left. The
  // documents are read with the driver, undecoded: no soft-delete filter to undo (tombstoned
  // documents are part of the page), and the writer skips the bookkeeping fields (a projection
  // would cost the database a copy of every document).
  const [raw, tombstones] = await Promise.all([
    collection.model.collection
      .find(
        { ...(await castFilter(collection, restriction)), _syncStream: stream, _syncSeq: range },
        { sort: { _syncSeq: 1 }, limit: limit + 1, batchSize: limit + 1, raw: true },
      )
      .toArray() as unknown as Promise<Uint8Array[]>,
    hasTombstones ? bookkeeping.tombstones.find({ stream, seq: range }).sort({ seq: 1 }).limit(limit + 1).batchSize(limit + 1).lean().exec() : [],
  ]);
  const writer = new EntityJsonWriter();
  const written = raw.map((bytes) => writer.append(bytes));
  const text = writer.bytes();
  const merged: { seq: number; json: Uint8Array }[] = written.map(({ seq, start, end }) => ({ seq, json: text.subarray(start, end) }));
  if (tombstones.length > 0) {
    for (const tombstone of tombstones) {
      const entity: SyncEntity = { id: tombstone.entityId, data: { id: tombstone.entityId }, seq: tombstone.seq, deleted: true };
      merged.push({ seq: tombstone.seq, json: Buffer.from(JSON.stringify(entity)) });
    }
    merged.sort((a, b) => a.seq - b.seq);
  }
  const page = merged.slice(0, limit);
  const hasMore = merged.length > limit;
  // The last page ends at the frontier: seqs between the last entity and it belong to writes that
  // later moved on (their newer seq is above), so the client may skip past them.
  const next = hasMore ? page[page.length - 1]!.seq : frontierSeq;
  return { stream, entities: page.map((entry) => entry.json), cursor: next, hasMore, frontierSeq };
}

/**
 * The JSON body of a snapshot page, keys in ARCHITECTURE §4's order.
 *
 * @example
 * res.setHeader("Content-Type", "application/json; charset=utf-8").end(snapshotBody(page));
 */
export function snapshotBody(page: SnapshotPageBytes): Buffer {
  const parts: Uint8Array[] = [Buffer.from(`{"stream":${JSON.stringify(page.stream)},"entities":[`)];
  const comma = Buffer.from(",");
  page.entities.forEach((entity, index) => {
    if (index > 0) parts.push(comma);
    parts.push(entity);
  });
  parts.push(Buffer.from(`],"cursor":${page.cursor},"hasMore":${page.hasMore},"frontierSeq":${page.frontierSeq}}`));
  return Buffer.concat(parts);
}

/** A snapshot filter cast to the model's types, as the model's own queries would cast it. */
async function castFilter(collection: SyncedCollection, restriction: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (Object.keys(restriction).length === 0) return restriction;
  return collection.model.find(restriction).cast() as Record<string, unknown>;
}

/**
 * The visible entities among `ids`: in one of the caller's streams and inside the collection's
 * `snapshotFilter` (deleted ones included, so a client can repair a tombstone).
 *
 * @example
 * await lookupEntities(todos, ["t1", "t2"], ["todos|owner:u1"], {});
 */
export async function lookupEntities(
  collection: SyncedCollection,
  ids: readonly string[],
  streams: readonly string[],
  restriction: Record<string, unknown>,
): Promise<SyncEntity[]> {
  if (ids.length === 0 || streams.length === 0) return [];
  const docs = (await collection.model
    .find({ ...restriction, _id: { $in: ids }, _syncStream: { $in: streams }, deleted: { $in: [true, false, null] } })
    .lean()
    .exec()) as Record<string, unknown>[];
  return docs.map(toEntity);
}

/**
 * The server-side restriction of a user's snapshot: the model's `snapshotFilter` when given
 * (custom scopes must give one; owner and tenant scopes are already limited by their stream).
 */
export async function snapshotRestriction(collection: SyncedCollection, user: RequestUser): Promise<Record<string, unknown>> {
  const filter = collection.sync.snapshotFilter;
  return filter ? await filter(user) : {};
}
