import type { Document } from "bson";
import type { CollectionData } from "../storage/collection-data.js";
import type { Storage } from "../storage/storage.js";

/**
 * Documents a reader sees differently from what storage holds now, by `equalityKey(_id)`. A
 * transaction's overlay is its own uncommitted writes over the versions its snapshot saw of the
 * documents other sessions changed since. Looked up lazily (at read time, not when a query is
 * planned), so a cursor suspended across `getMore`s keeps seeing the same snapshot.
 *
 * @example
 * overlay.get(equalityKey(id)); // a document, null (absent for this reader) or undefined (as stored)
 */
export interface DocumentOverlay {
  /** The version this reader sees: a document, `null` when it does not exist for it, `undefined` when as stored. */
  get(idKey: string): Document | null | undefined;
  /** Every overridden document that exists for this reader (keys not repeated). */
  documents(): Iterable<readonly [idKey: string, doc: Document]>;
}

/**
 * What command handlers read through: the catalog and, per collection, an optional overlay. The
 * planner plans over the collection's indexes as stored; query execution (`prepareQuery`) filters
 * what storage yields through the overlay and adds the overlay's own documents. Outside a
 * transaction the view is storage itself with no overlay, and the query path is unchanged.
 *
 * @example
 * const collection = ctx.view.collection(ctx.db, "todos");
 * const query = prepareQuery(collection, {filter: {done: false}}, ctx.view);
 */
export interface ReadView {
  /** The collection as this reader sees it, if it exists for it. */
  collection(db: string, name: string): CollectionData | undefined;
  /** The overlay of one collection, or `undefined` when the reader sees storage as it is. */
  overlayFor(collection: CollectionData): DocumentOverlay | undefined;
}

/**
 * The view of committed data as it is now: what every command outside a transaction reads.
 *
 * @example
 * const view = liveReadView(engine.storage);
 * view.collection("app", "todos") === engine.storage.collection("app", "todos"); // true
 */
export function liveReadView(storage: Storage): ReadView {
  return {
    collection: (db, name) => storage.collection(db, name),
    overlayFor: () => undefined,
  };
}
