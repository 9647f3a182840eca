import type { Document } from "bson";

/**
 * The storage slot of one document. Stored documents are immutable: an update puts a new object
 * in `doc`, so readers holding the old object (cursors, oplog pre-images) are never disturbed.
 * Index entries point at the slot, so they always reach the current version. A class (not a plain
 * object) so cursors can tell records from computed documents with `instanceof`.
 */
export class StoredRecord {
  /** Lazily cached serialization of `doc` (cleared when `doc` changes). */
  bytes: Buffer | undefined = undefined;
  /** Set when the document is deleted, so suspended index scans skip entries they still hold. */
  removed = false;

  constructor(
    /** Record id: insertion order within the collection, the tie-breaker inside index entries. */
    readonly rid: number,
    public doc: Document,
  ) {}
}
