import type { Document, Long } from "bson";

/**
 * A `cursor` reply field whose documents are held both as objects and as their serialized bytes.
 * Over the wire the bytes are spliced straight into the reply (stored documents are serialized at
 * most once and never re-parsed); the in-process API returns the objects.
 *
 * @example
 * return {cursor: new CursorBatch("firstBatch", docs, bytes, cursorId, "app.todos")};
 */
export class CursorBatch {
  constructor(
    readonly batchName: "firstBatch" | "nextBatch",
    readonly docs: readonly Document[],
    readonly bytes: readonly Buffer[],
    readonly id: Long,
    readonly ns: string,
    /** Extra `cursor` fields after `ns` (e.g. `postBatchResumeToken` for change streams). */
    readonly extra?: Document,
  ) {}

  /** The plain `{firstBatch|nextBatch, id, ns, ...extra}` document. */
  toDocument(): Document {
    return { [this.batchName]: this.docs, id: this.id, ns: this.ns, ...(this.extra ?? {}) };
  }
}
