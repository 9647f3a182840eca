import { UUID } from "bson";
import type { Document, Long } from "bson";
import { equalityKey } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { CollectionData } from "../storage/collection-data.js";
import { CollectionIndex } from "../storage/collection-index.js";
import { duplicateKeyError } from "../storage/duplicate-key-error.js";
import type { IndexKey } from "../storage/index-keys.js";
import { compileValidator } from "../storage/storage.js";
import type { Storage } from "../storage/storage.js";
import type {
  CollectionOptions,
  CreateCollectionOp,
  CreateIndexesOp,
  DeleteOp,
  InsertOp,
  OplogEntry,
  UpdateOp,
  WriteOp,
} from "../storage/write-ops.js";
import type { DocumentOverlay, ReadView } from "./read-view.js";
import { notInTransactionError, snapshotUnavailableError, writeConflictError } from "./transaction-errors.js";
import type { WriteLocks } from "./write-locks.js";

export type TransactionState = "inProgress" | "committed" | "aborted";

export interface TransactionInit {
  readonly txnNumber: Long;
  readonly storage: Storage;
  readonly locks: WriteLocks<Transaction>;
  /** When the first statement ran (the lifetime limit counts from here). */
  readonly startedAt: number;
  /** `readConcern.level` of the first statement; explicit DDL needs "local" (or none). */
  readonly readConcernLevel: string | undefined;
}

const NO_ENTRIES: readonly OplogEntry[] = Object.freeze([]);

/**
 * One multi-document transaction: a snapshot of committed data taken at its first statement, its
 * buffered writes, and the read view that combines them.
 *
 * - **Writes** (`stage`, the `CommandContext.commit` of in-transaction commands) are judged at the
 *   statement that makes them — duplicate keys (11000), validation (121), write conflicts (112:
 *   the document changed after the snapshot, or another open transaction wrote it first) — and
 *   buffered. Nothing reaches storage, the oplog or change streams before commit.
 * - **Reads** go through `view`: storage as it is now, overlaid with this transaction's own
 *   versions of the documents it wrote and, for documents others changed after the snapshot, the
 *   version the snapshot saw (recorded by `recordCommittedChange` as those commits happen).
 * - **Commit** is one `Storage.commit` of the buffer (all or nothing), done by the registry.
 *
 * @example
 * const txn = new Transaction({txnNumber, storage, locks, startedAt: Date.now(), readConcernLevel: undefined});
 * txn.stage([{op: "insert", db: "app", collection: "a", doc}]); // buffered, [] returned
 * prepareQuery(txn.view.collection("app", "a"), {filter: {}}, txn.view); // sees doc
 */
export class Transaction {
  state: TransactionState = "inProgress";
  readonly txnNumber: Long;
  readonly startedAt: number;
  readonly readConcernLevel: string | undefined;
  readonly view: ReadView;
  /** Cursors opened inside the transaction: they die with it. */
  readonly cursorIds: Long[] = [];
  /** The statement error that aborts the transaction once its command returns. */
  failedStatement: EngineError | undefined;
  /** Set when another session committed a change to a document this transaction wrote. */
  conflict: EngineError | undefined;
  /** Why the server aborted it (lifetime limit, session killed...), for NoSuchTransaction's message. */
  abortReason: string | undefined;

  private readonly storage: Storage;
  private readonly locks: WriteLocks<Transaction>;
  private readonly ops: WriteOp[] = [];
  /** Per namespace: this transaction's version of each document it wrote (null: deleted). */
  private readonly own = new Map<string, Map<string, Document | null>>();
  /** Per namespace: the snapshot's version of documents committed by others since (null: absent). */
  private readonly shadow = new Map<string, Map<string, Document | null>>();
  /** Collections this transaction created: invisible to others (and absent from storage) until commit. */
  private readonly created = new Map<string, CollectionData>();
  /** Namespaces dropped or renamed by others after the snapshot: their snapshot is gone. */
  private readonly catalogChanged = new Set<string>();
  private readonly overlays = new Map<string, DocumentOverlay>();
  private readonly indexKeys = new WeakMap<CollectionIndex, WeakMap<Document, IndexKey[]>>();
  /**
   * Per namespace and unique index (without collation): which of this transaction's documents
   * hold each key (`equalityKey` of the key), so a bulk insert checks uniqueness in O(1) per key
   * instead of against every document written before it. Built on first use, then maintained.
   */
  private readonly ownKeys = new Map<string, Map<CollectionIndex, Map<string, Set<string>>>>();

  constructor(init: TransactionInit) {
    this.txnNumber = init.txnNumber;
    this.storage = init.storage;
    this.locks = init.locks;
    this.startedAt = init.startedAt;
    this.readConcernLevel = init.readConcernLevel;
    this.view = {
      collection: (db, name) => this.collectionFor(db, name),
      overlayFor: (collection) => this.overlayFor(collection.ns),
    };
  }

  /** The buffered writes, in statement order: what commit applies. */
  get operations(): readonly WriteOp[] {
    return this.ops;
  }

  /**
   * Judges and buffers one batch of writes (a handler's `ctx.commit`). Returns no entries: nothing
   * is committed yet. Throws the statement's error (11000, 121, 112, 263...); the first failure
   * is kept in `failedStatement`, and every later write of the same command fails with it too
   * (a failed statement ends the transaction, as on mongod).
   */
  stage(ops: readonly WriteOp[]): readonly OplogEntry[] {
    if (this.failedStatement) throw this.failedStatement;
    try {
      if (this.conflict) throw this.conflict;
      for (const op of ops) this.stageOne(op);
    } catch (error) {
      this.failedStatement =
        error instanceof EngineError
          ? error
          : new EngineError(ErrorCodes.InternalError, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
    return NO_ENTRIES;
  }

  /**
   * Called (synchronously, in commit order) for every document another session changed while this
   * transaction is open: keeps the first — the snapshot's — version.
   */
  recordCommittedChange(ns: string, idKey: string, before: Document | null): void {
    let seen = this.shadow.get(ns);
    if (!seen) {
      seen = new Map();
      this.shadow.set(ns, seen);
    }
    if (!seen.has(idKey)) seen.set(idKey, before);
  }

  /** Another session dropped or renamed `ns` after the snapshot. */
  recordCatalogChange(ns: string): void {
    this.catalogChanged.add(ns);
  }

  /** Another session committed a write to a document this transaction wrote: it cannot commit. */
  markConflict(ns: string): void {
    this.conflict ??= writeConflictError(ns, "another operation wrote a document this transaction wrote");
  }

  /** Frees the buffered state (after commit or abort). */
  discard(): void {
    this.ops.length = 0;
    this.own.clear();
    this.shadow.clear();
    this.created.clear();
    this.overlays.clear();
    this.ownKeys.clear();
  }

  private collectionFor(db: string, name: string): CollectionData | undefined {
    if (this.created.size === 0 && this.catalogChanged.size === 0) return this.storage.collection(db, name);
    const ns = `${db}.${name}`;
    if (this.catalogChanged.has(ns)) throw snapshotUnavailableError(ns);
    return this.created.get(ns) ?? this.storage.collection(db, name);
  }

  private overlayFor(ns: string): DocumentOverlay {
    let overlay = this.overlays.get(ns);
    if (!overlay) {
      overlay = {
        get: (idKey) => {
          const mine = this.own.get(ns)?.get(idKey);
          return mine !== undefined ? mine : this.shadow.get(ns)?.get(idKey);
        },
        documents: () => this.overlaidDocuments(ns),
      };
      this.overlays.set(ns, overlay);
    }
    return overlay;
  }

  private *overlaidDocuments(ns: string): Generator<readonly [string, Document], void, undefined> {
    const mine = this.own.get(ns);
    if (mine) {
      for (const [idKey, doc] of mine) if (doc !== null) yield [idKey, doc];
    }
    const seen = this.shadow.get(ns);
    if (seen) {
      for (const [idKey, doc] of seen) if (doc !== null && !mine?.has(idKey)) yield [idKey, doc];
    }
  }

  private stageOne(op: WriteOp): void {
    switch (op.op) {
      case "insert":
        return this.stageInsert(op);
      case "update":
        return this.stageUpdate(op);
      case "delete":
        return this.stageDelete(op);
      case "createCollection":
        return this.stageCreateCollection(op);
      case "createIndexes":
        return this.stageCreateIndexes(op);
      default:
        // The command rules refuse these commands first; this keeps the seam honest on its own.
        throw notInTransactionError(`Cannot run '${op.op}' in a multi-document transaction.`);
    }
  }

  private stageInsert(op: InsertOp): void {
    const ns = `${op.db}.${op.collection}`;
    // Implicit creation (allowed in transactions since 4.4): storage creates it at commit.
    const collection = this.collectionFor(op.db, op.collection) ?? this.createVirtual(op.db, op.collection, {});
    const id = op.doc["_id"];
    const idKey = equalityKey(id);
    if (this.versionOf(ns, idKey, collection) !== undefined) throw duplicateKeyError(ns, collection.idIndex.spec, [id]);
    this.lock(ns, idKey);
    // Invisible to the snapshot but stored now: inserted by a commit after this transaction began.
    if (!this.wrote(ns, idKey) && collection.records.has(idKey)) {
      throw writeConflictError(ns, "a document with this _id was inserted after the transaction started");
    }
    this.checkDocument(collection, ns, idKey, op.doc, undefined, op.bypassDocumentValidation);
    this.buffer(ns, idKey, op.doc, op);
  }

  private stageUpdate(op: UpdateOp): void {
    const { ns, collection, idKey } = this.target(op);
    this.checkDocument(collection, ns, idKey, op.after, op.before, op.bypassDocumentValidation);
    this.buffer(ns, idKey, op.after, op);
  }

  private stageDelete(op: DeleteOp): void {
    const { ns, idKey } = this.target(op);
    this.buffer(ns, idKey, null, op);
  }

  /** The document an update/delete names must be this transaction's current version of it, unchanged by others since the snapshot. */
  private target(op: UpdateOp | DeleteOp): { ns: string; collection: CollectionData; idKey: string } {
    const ns = `${op.db}.${op.collection}`;
    const collection = this.collectionFor(op.db, op.collection);
    const idKey = equalityKey(op.before["_id"]);
    if (!collection || this.versionOf(ns, idKey, collection) !== op.before) throw writeConflictError(ns);
    this.lock(ns, idKey);
    if (!this.wrote(ns, idKey) && collection.records.get(idKey)?.doc !== op.before) {
      throw writeConflictError(ns, "the document changed after the transaction started");
    }
    return { ns, collection, idKey };
  }

  private stageCreateCollection(op: CreateCollectionOp): void {
    const ns = `${op.db}.${op.collection}`;
    this.requireLocalReadConcern(`Cannot create collection ${ns}`);
    if (this.collectionFor(op.db, op.collection)) {
      throw new EngineError(ErrorCodes.NamespaceExists, `Collection ${ns} already exists.`);
    }
    const collection = this.createVirtual(op.db, op.collection, op.options);
    // Same UUID at commit as the transaction saw (and a concurrent creation then fails the commit).
    this.ops.push({ ...op, uuid: collection.uuid });
  }

  private stageCreateIndexes(op: CreateIndexesOp): void {
    const ns = `${op.db}.${op.collection}`;
    let collection = this.created.get(ns);
    if (!collection) {
      if (this.collectionFor(op.db, op.collection)) {
        throw notInTransactionError(`Cannot create new indexes on existing collection ${ns} in a multi-document transaction.`);
      }
      collection = this.createVirtual(op.db, op.collection, {});
    }
    this.requireLocalReadConcern(`Cannot create indexes on ${ns}`);
    const mine = this.own.get(ns);
    if (mine && [...mine.values()].some((doc) => doc !== null)) {
      throw notInTransactionError(`Cannot create new indexes on non-empty collection ${ns} in a multi-document transaction.`);
    }
    for (const spec of op.specs) {
      if (collection.indexes.has(spec.name)) {
        throw new EngineError(ErrorCodes.IndexAlreadyExists, `index ${spec.name} already exists on ${ns}`);
      }
      collection.indexes.set(spec.name, new CollectionIndex(spec));
    }
    this.ops.push(op);
  }

  private createVirtual(db: string, name: string, options: CollectionOptions): CollectionData {
    const collection = new CollectionData(db, name, new UUID(), options);
    collection.validate = compileValidator(options.validator);
    this.created.set(`${db}.${name}`, collection);
    return collection;
  }

  private requireLocalReadConcern(what: string): void {
    if (this.readConcernLevel !== undefined && this.readConcernLevel !== "local") {
      throw notInTransactionError(
        `${what} in a multi-document transaction with readConcern level '${this.readConcernLevel}': explicit DDL needs readConcern 'local'`,
      );
    }
  }

  /** The version this transaction sees: its own write, else the snapshot's, else the stored one. */
  private versionOf(ns: string, idKey: string, collection: CollectionData): Document | undefined {
    const mine = this.own.get(ns)?.get(idKey);
    if (mine !== undefined) return mine ?? undefined;
    const seen = this.shadow.get(ns)?.get(idKey);
    if (seen !== undefined) return seen ?? undefined;
    return collection.records.get(idKey)?.doc;
  }

  private wrote(ns: string, idKey: string): boolean {
    return this.own.get(ns)?.has(idKey) === true;
  }

  private lock(ns: string, idKey: string): void {
    if (!this.locks.claim(ns, idKey, this)) {
      throw writeConflictError(ns, "another transaction has written this document");
    }
  }

  private buffer(ns: string, idKey: string, version: Document | null, op: WriteOp): void {
    let mine = this.own.get(ns);
    if (!mine) {
      mine = new Map();
      this.own.set(ns, mine);
    }
    const previous = mine.get(idKey);
    mine.set(idKey, version);
    const keyed = this.ownKeys.get(ns);
    if (keyed) {
      for (const [index, holders] of keyed) {
        if (previous) for (const key of this.keysOf(index, previous)) holders.get(equalityKey(key))?.delete(idKey);
        if (version) addHolder(holders, this.keysOf(index, version), idKey);
      }
    }
    this.ops.push(op);
  }

  /** The key → holders map of this transaction's documents in a unique index, or undefined under a collation. */
  private ownKeyHolders(index: CollectionIndex, ns: string): Map<string, Set<string>> | undefined {
    if (index.collation !== undefined) return undefined;
    let keyed = this.ownKeys.get(ns);
    if (!keyed) {
      keyed = new Map();
      this.ownKeys.set(ns, keyed);
    }
    let holders = keyed.get(index);
    if (!holders) {
      holders = new Map();
      for (const [holder, doc] of this.own.get(ns) ?? []) if (doc) addHolder(holders, this.keysOf(index, doc), holder);
      keyed.set(index, holders);
    }
    return holders;
  }

  /** Validation and unique indexes, judged against what this transaction sees. */
  private checkDocument(collection: CollectionData, ns: string, idKey: string, doc: Document, before: Document | undefined, bypass?: boolean): void {
    this.storage.checkValidation(collection, doc, before, bypass);
    for (const index of collection.indexes.values()) {
      if (!index.spec.unique || index.name === "_id_") continue;
      const keys = index.keysOf(doc);
      if (keys.length > 0) this.checkUnique(index, ns, idKey, keys);
    }
  }

  private checkUnique(index: CollectionIndex, ns: string, idKey: string, keys: readonly IndexKey[]): void {
    const mine = this.own.get(ns);
    const seen = this.shadow.get(ns);
    for (const key of keys) {
      const start = index.tree.seek((entry) => index.compareKeys(entry.key, key) < 0);
      for (const entry of index.tree.scan(start, "forward")) {
        if (index.compareKeys(entry.key, key) !== 0) break;
        const holder = equalityKey(entry.record.doc["_id"]);
        // Our own writes are judged below, by the version this transaction wrote.
        if (holder === idKey || mine?.has(holder)) continue;
        if (seen?.has(holder)) throw writeConflictError(ns, `index ${index.name}: the key was written after the transaction started`);
        throw duplicateKeyError(ns, index.spec, key);
      }
    }
    if (mine) {
      const holders = this.ownKeyHolders(index, ns);
      if (holders) {
        for (const key of keys) {
          for (const holder of holders.get(equalityKey(key)) ?? []) if (holder !== idKey) throw duplicateKeyError(ns, index.spec, key);
        }
      } else {
        for (const [holder, version] of mine) {
          if (holder === idKey || version === null) continue;
          const shared = this.sharedKey(index, version, keys);
          if (shared) throw duplicateKeyError(ns, index.spec, shared);
        }
      }
    }
    if (seen) {
      for (const [holder, version] of seen) {
        if (holder === idKey || version === null || mine?.has(holder)) continue;
        if (this.sharedKey(index, version, keys)) {
          throw writeConflictError(ns, `index ${index.name}: the key's holder changed after the transaction started`);
        }
      }
    }
  }

  /** The first of `keys` that `doc` also has in `index`. */
  private sharedKey(index: CollectionIndex, doc: Document, keys: readonly IndexKey[]): IndexKey | undefined {
    const theirs = this.keysOf(index, doc);
    for (const key of keys) if (theirs.some((other) => index.compareKeys(other, key) === 0)) return key;
    return undefined;
  }

  /** `index.keysOf(doc)`, cached per document (buffered documents are judged again and again). */
  private keysOf(index: CollectionIndex, doc: Document): IndexKey[] {
    let cache = this.indexKeys.get(index);
    if (!cache) {
      cache = new WeakMap();
      this.indexKeys.set(index, cache);
    }
    let keys = cache.get(doc);
    if (!keys) {
      keys = index.keysOf(doc);
      cache.set(doc, keys);
    }
    return keys;
  }
}

function addHolder(holders: Map<string, Set<string>>, keys: readonly IndexKey[], holder: string): void {
  for (const key of keys) {
    const id = equalityKey(key);
    let set = holders.get(id);
    if (!set) {
      set = new Set();
      holders.set(id, set);
    }
    set.add(holder);
  }
}
