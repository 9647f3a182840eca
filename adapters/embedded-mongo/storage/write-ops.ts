import type { Binary, Document, Long, Timestamp } from "bson";
import type { IndexSpec } from "./index-spec.js";

/**
 * The logical operations a command asks the storage to apply. Commands never touch collections
 * directly: they read, decide, and hand a `WriteBatch` to `Storage.commit`, which applies it
 * atomically and turns it into `OplogEntry`s. Update and delete ops name the exact document
 * version they were computed from (`before`); if it is no longer current the batch fails with
 * WriteConflict, which is what makes buffered (transactional) batches safe to apply later.
 */
export type WriteOp =
  | InsertOp
  | UpdateOp
  | DeleteOp
  | CreateCollectionOp
  | DropCollectionOp
  | RenameCollectionOp
  | DropDatabaseOp
  | CreateIndexesOp
  | DropIndexesOp
  | CollModOp;

export interface InsertOp {
  readonly op: "insert";
  readonly db: string;
  readonly collection: string;
  /** `_id` first, already generated when the client sent none. Never mutated after commit. */
  readonly doc: Document;
  readonly bypassDocumentValidation?: boolean;
}

export interface UpdateOp {
  readonly op: "update";
  readonly db: string;
  readonly collection: string;
  /** The stored document this update was computed from (identity, not equality, is checked). */
  readonly before: Document;
  /** The complete new document (same `_id`). */
  readonly after: Document;
  /** Present for operator and pipeline updates (change events "update"); absent for replacements. */
  readonly updateDescription?: UpdateDescription;
  readonly bypassDocumentValidation?: boolean;
}

export interface DeleteOp {
  readonly op: "delete";
  readonly db: string;
  readonly collection: string;
  readonly before: Document;
}

export interface CreateCollectionOp {
  readonly op: "createCollection";
  readonly db: string;
  readonly collection: string;
  readonly options: CollectionOptions;
  /** Reuse this UUID (journal replay); a new one is generated otherwise. */
  readonly uuid?: Binary;
}

export interface DropCollectionOp {
  readonly op: "dropCollection";
  readonly db: string;
  readonly collection: string;
}

export interface RenameCollectionOp {
  readonly op: "renameCollection";
  readonly db: string;
  readonly collection: string;
  readonly toDb: string;
  readonly toCollection: string;
  readonly dropTarget: boolean;
}

export interface DropDatabaseOp {
  readonly op: "dropDatabase";
  readonly db: string;
}

export interface CreateIndexesOp {
  readonly op: "createIndexes";
  readonly db: string;
  readonly collection: string;
  readonly specs: readonly IndexSpec[];
}

export interface DropIndexesOp {
  readonly op: "dropIndexes";
  readonly db: string;
  readonly collection: string;
  readonly names: readonly string[];
}

export interface CollModOp {
  readonly op: "collMod";
  readonly db: string;
  readonly collection: string;
  /** New validator settings (absent fields stay as they are). */
  readonly validator?: Document;
  readonly validationLevel?: "off" | "strict" | "moderate";
  readonly validationAction?: "error" | "warn";
  /** `changeStreamPreAndPostImages` (kept under the collection's `other` options). */
  readonly changeStreamPreAndPostImages?: { readonly enabled: boolean };
  /** A view's new definition (`collMod` on a view: both given together). */
  readonly view?: { readonly viewOn: string; readonly pipeline: readonly Document[] };
  /** Per-index changes: TTL and hidden flags, by index name. */
  readonly indexChanges?: ReadonlyArray<{ name: string; expireAfterSeconds?: number; hidden?: boolean }>;
}

/** Options a collection is created with (what `listCollections` reports under `options`). */
export interface CollectionOptions {
  readonly validator?: Document;
  readonly validationLevel?: "off" | "strict" | "moderate";
  readonly validationAction?: "error" | "warn";
  /** Anything else the client sent that we store and echo but do not act on. */
  readonly other?: Document;
}

/** What `compileUpdate` reports for operator updates; change streams publish it as is. */
export interface UpdateDescription {
  readonly updatedFields: Document;
  readonly removedFields: readonly string[];
  readonly truncatedArrays?: ReadonlyArray<{ field: string; newSize: number }>;
}

/** A batch applied atomically: all of its ops or none. */
export interface WriteBatch {
  readonly ops: readonly WriteOp[];
  /** The session and transaction number of the client command, copied into every entry. */
  readonly lsid?: Document;
  readonly txnNumber?: Long;
  /** The batch is a committed multi-document transaction (commitTransaction): entries say so. */
  readonly inTransaction?: boolean;
}

/**
 * One committed change, shaped like a MongoDB oplog entry so change streams and the journal
 * can be written against familiar semantics:
 * - `i`: `o` is the inserted document, `o2` is `{_id}`.
 * - `u`: `o` is the full post-image (replay needs no diff), `o2` is `{_id}`, `updateDescription`
 *   is present for operator/pipeline updates and absent for replacements; `preImage`/`postImage`
 *   are the old/new documents (shared references to immutable stored objects: free to keep).
 * - `d`: `o` is `{_id}`, `preImage` is the deleted document.
 * - `c`: `ns` is `db.$cmd`; `o` is the command in oplog form: `{create, ...options}`,
 *   `{drop}`, `{renameCollection: "db.a", to: "db.b", dropTarget}`, `{dropDatabase: 1}`,
 *   `{createIndexes: coll, ...indexSpec}`, `{dropIndexes: coll, index: name}`, `{collMod: coll, ...}`.
 */
export interface OplogEntry {
  readonly op: "i" | "u" | "d" | "c";
  readonly ns: string;
  readonly o: Document;
  readonly o2?: Document;
  /** Unique and strictly increasing across entries. */
  readonly ts: Timestamp;
  readonly wall: Date;
  /** The collection's UUID (for `c` entries, the collection the command is about). */
  readonly ui?: Binary;
  readonly lsid?: Document;
  readonly txnNumber?: Long;
  /**
   * Set on the entries of a committed multi-document transaction (their `lsid`/`txnNumber` name
   * the transaction; change events carry them then). Retryable writes have `lsid`/`txnNumber` too,
   * but not this mark.
   */
  readonly inTransaction?: true;
  readonly updateDescription?: UpdateDescription;
  /**
   * The old/new documents. Always kept (transactions, retryable writes and journal replay use
   * them); change streams show them only when `imagesEnabled` says the collection had
   * `changeStreamPreAndPostImages` enabled at the time of the write, as mongod records them then.
   */
  readonly preImage?: Document;
  readonly postImage?: Document;
  readonly imagesEnabled?: true;
}
