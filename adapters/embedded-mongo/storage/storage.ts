import { UUID } from "bson";
import type { Document, Long } from "bson";
import { compileFilter, equalityKey } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { EngineLogger } from "../engine-logger.js";
import { ClusterClock } from "./cluster-clock.js";
import { CollectionData } from "./collection-data.js";
import { CollectionIndex } from "./collection-index.js";
import { duplicateKeyError } from "./duplicate-key-error.js";
import type { IndexKey } from "./index-keys.js";
import { assertValidCollectionName } from "./namespace.js";
import { Oplog } from "./oplog.js";
import { validationDetails } from "./validation-details.js";
import { StoredRecord } from "./stored-record.js";
import type {
  CollModOp,
  CreateCollectionOp,
  CreateIndexesOp,
  DeleteOp,
  DropIndexesOp,
  InsertOp,
  OplogEntry,
  RenameCollectionOp,
  UpdateOp,
  WriteBatch,
  WriteOp,
} from "./write-ops.js";

/** An entry before it is stamped with its timestamp at the end of a successful commit. */
type PendingEntry = Omit<OplogEntry, "ts" | "wall" | "lsid" | "txnNumber" | "inTransaction">;
type Undo = () => void;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface StorageOptions {
  /** How many committed entries the in-memory oplog retains. */
  readonly oplogCapacity: number;
  readonly logger: EngineLogger;
  /** Clock source for timestamps and `wall` (tests may freeze it). */
  readonly now?: () => number;
}

/**
 * The catalog (databases → collections → documents and indexes) and **the one write path**:
 * `commit(batch)` applies a batch of logical operations atomically — all or none, undoing the
 * applied prefix when an op fails — then stamps each resulting oplog entry with a fresh
 * timestamp, appends the entries to the oplog and notifies its subscribers, all synchronously.
 *
 * Everything that changes data or the catalog goes through `commit` (commands, TTL deletes,
 * `$out`/`$merge`), so change streams, the journal and transactions each hook one place; see
 * README.md.
 *
 * @example
 * storage.commit({ops: [{op: "insert", db: "app", collection: "todos", doc: {_id: id, title: "x"}}]});
 * storage.collection("app", "todos")?.findById(id)?.doc; // {_id: id, title: "x"}
 */
export class Storage {
  readonly clock: ClusterClock;
  readonly oplog: Oplog;
  private readonly databases = new Map<string, Map<string, CollectionData>>();
  private readonly logger: EngineLogger;

  constructor(options: StorageOptions) {
    this.clock = new ClusterClock(options.now);
    this.oplog = new Oplog(options.oplogCapacity);
    this.logger = options.logger;
  }

  collection(db: string, name: string): CollectionData | undefined {
    return this.databases.get(db)?.get(name);
  }

  /** Names of databases holding at least one collection. */
  databaseNames(): string[] {
    return [...this.databases.keys()];
  }

  collections(db: string): CollectionData[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  /**
   * Applies `batch` atomically and returns its committed entries (in order). Throws the first
   * op's `EngineError` (11000, 121, 112...) after undoing everything the batch had applied.
   */
  commit(batch: WriteBatch): readonly OplogEntry[] {
    const pending: PendingEntry[] = [];
    const undo: Undo[] = [];
    try {
      for (const op of batch.ops) this.apply(op, pending, undo);
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
      throw error;
    }
    if (pending.length === 0) return [];
    const wall = new Date();
    // Stamp the pending objects in place (no copies: this runs once per written document).
    for (const entry of pending as Array<Mutable<OplogEntry>>) {
      entry.ts = this.clock.tick();
      entry.wall = wall;
      if (batch.lsid !== undefined) entry.lsid = batch.lsid;
      if (batch.txnNumber !== undefined) entry.txnNumber = batch.txnNumber as Long;
      if (batch.inTransaction) entry.inTransaction = true;
    }
    const entries = pending as OplogEntry[];
    this.oplog.append(entries);
    return entries;
  }

  private apply(op: WriteOp, pending: PendingEntry[], undo: Undo[]): void {
    switch (op.op) {
      case "insert":
        return this.applyInsert(op, pending, undo);
      case "update":
        return this.applyUpdate(op, pending, undo);
      case "delete":
        return this.applyDelete(op, pending, undo);
      case "createCollection":
        this.applyCreateCollection(op, pending, undo);
        return;
      case "dropCollection":
        return this.applyDropCollection(op.db, op.collection, pending, undo);
      case "renameCollection":
        return this.applyRename(op, pending, undo);
      case "dropDatabase": {
        for (const collection of this.collections(op.db)) {
          this.applyDropCollection(op.db, collection.name, pending, undo);
        }
        pending.push({ op: "c", ns: `${op.db}.$cmd`, o: { dropDatabase: 1 } });
        return;
      }
      case "createIndexes":
        return this.applyCreateIndexes(op, pending, undo);
      case "dropIndexes":
        return this.applyDropIndexes(op, pending, undo);
      case "collMod":
        return this.applyCollMod(op, pending, undo);
    }
  }

  private applyInsert(op: InsertOp, pending: PendingEntry[], undo: Undo[]): void {
    const collection =
      this.collection(op.db, op.collection) ??
      this.applyCreateCollection({ op: "createCollection", db: op.db, collection: op.collection, options: {} }, pending, undo);
    if (collection.view) throw notOnView(collection.ns);
    const doc = op.doc;
    const id = doc["_id"];
    const idKey = equalityKey(id);
    if (collection.records.has(idKey)) throw duplicateKeyError(collection.ns, collection.idIndex.spec, [id]);
    this.checkValidation(collection, doc, undefined, op.bypassDocumentValidation);
    const record = new StoredRecord(collection.nextRid++, doc);
    const changes = secondaryKeys(collection, doc);
    for (const [index, keys] of changes) {
      const conflict = index.conflictFor(keys, record.rid);
      if (conflict) throw duplicateKeyError(collection.ns, index.spec, conflict.key);
    }
    collection.records.set(idKey, record);
    collection.idIndex.add(record, [[id]]);
    for (const [index, keys] of changes) index.add(record, keys);
    undo.push(() => {
      record.removed = true;
      collection.records.delete(idKey);
      collection.idIndex.remove(record, [[id]]);
      for (const [index, keys] of changes) index.remove(record, keys);
    });
    pending.push({ op: "i", ns: collection.ns, ui: collection.uuid, o: doc, o2: { _id: id } });
  }

  private applyUpdate(op: UpdateOp, pending: PendingEntry[], undo: Undo[]): void {
    const collection = this.collection(op.db, op.collection);
    const id = op.before["_id"];
    const record = collection?.findById(id);
    if (!collection || !record || record.doc !== op.before) throw writeConflict();
    if (equalityKey(op.after["_id"]) !== equalityKey(id)) {
      throw new EngineError(
        ErrorCodes.ImmutableField,
        "Performing an update on the path '_id' would modify the immutable field '_id'",
      );
    }
    this.checkValidation(collection, op.after, op.before, op.bypassDocumentValidation);
    const changes: Array<{ index: CollectionIndex; oldKeys: IndexKey[]; newKeys: IndexKey[] }> = [];
    for (const index of collection.indexes.values()) {
      if (index.name === "_id_") continue;
      const oldKeys = index.keysOf(op.before);
      const newKeys = index.keysOf(op.after);
      if (sameKeys(index, oldKeys, newKeys)) continue;
      const conflict = index.conflictFor(newKeys, record.rid);
      if (conflict) throw duplicateKeyError(collection.ns, index.spec, conflict.key);
      changes.push({ index, oldKeys, newKeys });
    }
    for (const { index, oldKeys, newKeys } of changes) {
      index.remove(record, oldKeys);
      index.add(record, newKeys);
    }
    record.doc = op.after;
    record.bytes = undefined;
    undo.push(() => {
      for (const { index, oldKeys, newKeys } of changes) {
        index.remove(record, newKeys);
        index.add(record, oldKeys);
      }
      record.doc = op.before;
      record.bytes = undefined;
    });
    pending.push({
      op: "u",
      ns: collection.ns,
      ui: collection.uuid,
      o: op.after,
      o2: { _id: id },
      ...(op.updateDescription ? { updateDescription: op.updateDescription } : {}),
      preImage: op.before,
      postImage: op.after,
      ...(collection.recordsImages ? { imagesEnabled: true as const } : {}),
    });
  }

  private applyDelete(op: DeleteOp, pending: PendingEntry[], undo: Undo[]): void {
    const collection = this.collection(op.db, op.collection);
    const id = op.before["_id"];
    const idKey = equalityKey(id);
    const record = collection?.records.get(idKey);
    if (!collection || !record || record.doc !== op.before) throw writeConflict();
    const removed: Array<[CollectionIndex, IndexKey[]]> = [];
    for (const index of collection.indexes.values()) {
      const keys = index.name === "_id_" ? [[id]] : index.keysOf(record.doc);
      index.remove(record, keys);
      removed.push([index, keys]);
    }
    collection.records.delete(idKey);
    record.removed = true;
    undo.push(() => {
      record.removed = false;
      collection.records.set(idKey, record);
      for (const [index, keys] of removed) index.add(record, keys);
    });
    pending.push({
      op: "d",
      ns: collection.ns,
      ui: collection.uuid,
      o: { _id: id },
      preImage: op.before,
      ...(collection.recordsImages ? { imagesEnabled: true as const } : {}),
    });
  }

  private applyCreateCollection(op: CreateCollectionOp, pending: PendingEntry[], undo: Undo[]): CollectionData {
    assertValidCollectionName(op.db, op.collection);
    if (this.collection(op.db, op.collection)) {
      throw new EngineError(ErrorCodes.NamespaceExists, `Collection ${op.db}.${op.collection} already exists.`);
    }
    const collection = new CollectionData(op.db, op.collection, op.uuid ?? new UUID(), op.options);
    collection.validate = compileValidator(op.options.validator);
    this.attach(collection);
    undo.push(() => this.detach(collection));
    // A view has no UUID and no _id index in mongod's oplog (nor in its change events).
    pending.push(
      collection.view
        ? { op: "c", ns: `${op.db}.$cmd`, o: { create: op.collection, ...collection.optionsDocument() } }
        : {
            op: "c",
            ns: `${op.db}.$cmd`,
            ui: collection.uuid,
            o: { create: op.collection, ...collection.optionsDocument(), idIndex: { v: 2, key: { _id: 1 }, name: "_id_" } },
          },
    );
    return collection;
  }

  private applyDropCollection(db: string, name: string, pending: PendingEntry[], undo: Undo[]): void {
    const collection = this.collection(db, name);
    if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `ns not found: ${db}.${name}`);
    this.detach(collection);
    undo.push(() => this.attach(collection));
    pending.push(collection.view ? { op: "c", ns: `${db}.$cmd`, o: { drop: name } } : { op: "c", ns: `${db}.$cmd`, ui: collection.uuid, o: { drop: name } });
  }

  private applyRename(op: RenameCollectionOp, pending: PendingEntry[], undo: Undo[]): void {
    const source = this.collection(op.db, op.collection);
    if (!source) throw new EngineError(ErrorCodes.NamespaceNotFound, `Source collection ${op.db}.${op.collection} does not exist`);
    if (source.view) throw new EngineError(ErrorCodes.CommandNotSupportedOnView, `cannot rename view: ${source.ns}`);
    assertValidCollectionName(op.toDb, op.toCollection);
    const target = this.collection(op.toDb, op.toCollection);
    if (target === source) return;
    if (target) {
      if (!op.dropTarget) throw new EngineError(ErrorCodes.NamespaceExists, "target namespace exists");
      this.applyDropCollection(op.toDb, op.toCollection, pending, undo);
    }
    const from = { db: source.db, name: source.name };
    this.detach(source);
    source.db = op.toDb;
    source.name = op.toCollection;
    this.attach(source);
    undo.push(() => {
      this.detach(source);
      source.db = from.db;
      source.name = from.name;
      this.attach(source);
    });
    pending.push({
      op: "c",
      ns: `${from.db}.$cmd`,
      ui: source.uuid,
      o: {
        renameCollection: `${from.db}.${from.name}`,
        to: `${op.toDb}.${op.toCollection}`,
        stayTemp: false,
        dropTarget: Boolean(target),
      },
    });
  }

  private applyCreateIndexes(op: CreateIndexesOp, pending: PendingEntry[], undo: Undo[]): void {
    const collection =
      this.collection(op.db, op.collection) ??
      this.applyCreateCollection({ op: "createCollection", db: op.db, collection: op.collection, options: {} }, pending, undo);
    if (collection.view) throw notOnView(collection.ns);
    for (const spec of op.specs) {
      if (collection.indexes.has(spec.name)) {
        throw new EngineError(ErrorCodes.IndexAlreadyExists, `index ${spec.name} already exists on ${collection.ns}`);
      }
      const index = new CollectionIndex(spec);
      for (const record of collection.records.values()) {
        const keys = index.keysOf(record.doc);
        const conflict = index.conflictFor(keys, record.rid);
        if (conflict) throw duplicateKeyError(collection.ns, spec, conflict.key);
        index.add(record, keys);
      }
      collection.indexes.set(spec.name, index);
      undo.push(() => collection.indexes.delete(spec.name));
      pending.push({
        op: "c",
        ns: `${collection.db}.$cmd`,
        ui: collection.uuid,
        o: { createIndexes: collection.name, ...spec.document },
      });
    }
  }

  private applyDropIndexes(op: DropIndexesOp, pending: PendingEntry[], undo: Undo[]): void {
    const collection = this.collection(op.db, op.collection);
    if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `ns not found ${op.db}.${op.collection}`);
    if (collection.view) throw notOnView(collection.ns);
    for (const name of op.names) {
      const index = collection.indexes.get(name);
      if (!index) throw new EngineError(ErrorCodes.IndexNotFound, `index not found with name [${name}]`);
      if (name === "_id_") throw new EngineError(ErrorCodes.InvalidOptions, "cannot drop _id index");
      collection.indexes.delete(name);
      undo.push(() => collection.indexes.set(name, index));
      pending.push({ op: "c", ns: `${collection.db}.$cmd`, ui: collection.uuid, o: { dropIndexes: collection.name, index: name } });
    }
  }

  private applyCollMod(op: CollModOp, pending: PendingEntry[], undo: Undo[]): void {
    const collection = this.collection(op.db, op.collection);
    if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `ns does not exist: ${op.db}.${op.collection}`);
    const previous = { options: collection.options, validate: collection.validate };
    const specs = new Map<CollectionIndex, CollectionIndex["spec"]>();
    const other = collModOther(collection.options.other, op);
    const options = {
      ...collection.options,
      ...(other !== collection.options.other ? { other } : {}),
      ...(op.validator !== undefined ? { validator: op.validator } : {}),
      ...(op.validationLevel !== undefined ? { validationLevel: op.validationLevel } : {}),
      ...(op.validationAction !== undefined ? { validationAction: op.validationAction } : {}),
    };
    const validate = op.validator !== undefined ? compileValidator(op.validator) : collection.validate;
    for (const change of op.indexChanges ?? []) {
      const index = collection.indexes.get(change.name);
      if (!index) throw new EngineError(ErrorCodes.IndexNotFound, `cannot find index ${change.name} for ns ${collection.ns}`);
      specs.set(index, index.spec);
      const document = { ...index.spec.document };
      if (change.expireAfterSeconds !== undefined) document["expireAfterSeconds"] = change.expireAfterSeconds;
      if (change.hidden !== undefined) document["hidden"] = change.hidden;
      index.spec = {
        ...index.spec,
        ...(change.expireAfterSeconds !== undefined ? { expireAfterSeconds: change.expireAfterSeconds } : {}),
        document,
      };
    }
    collection.options = options;
    collection.validate = validate;
    undo.push(() => {
      collection.options = previous.options;
      collection.validate = previous.validate;
      for (const [index, spec] of specs) index.spec = spec;
    });
    const o: Document = { collMod: collection.name };
    if (op.validator !== undefined) o["validator"] = op.validator;
    if (op.validationLevel !== undefined) o["validationLevel"] = op.validationLevel;
    if (op.validationAction !== undefined) o["validationAction"] = op.validationAction;
    if (op.indexChanges) o["index"] = op.indexChanges;
    if (op.changeStreamPreAndPostImages) o["changeStreamPreAndPostImages"] = op.changeStreamPreAndPostImages;
    if (op.view) Object.assign(o, op.view);
    pending.push(collection.view ? { op: "c", ns: `${collection.db}.$cmd`, o } : { op: "c", ns: `${collection.db}.$cmd`, ui: collection.uuid, o });
  }

  /**
   * Throws DocumentValidationFailure (121) when `doc` fails the collection's validator (honouring
   * `validationLevel`/`validationAction`). Public so a transaction can judge a write at the
   * statement that makes it, long before its commit applies it here.
   */
  checkValidation(collection: CollectionData, doc: Document, before: Document | undefined, bypass?: boolean): void {
    const validate = collection.validate;
    if (!validate || bypass) return;
    const level = collection.options.validationLevel ?? "strict";
    if (level === "off") return;
    // "moderate" leaves already-invalid documents updatable.
    if (level === "moderate" && before !== undefined && !validate(before)) return;
    if (validate(doc)) return;
    const errInfo = { failingDocumentId: doc["_id"], details: validationDetails(collection.options.validator ?? {}, doc) };
    if (collection.options.validationAction === "warn") {
      // mongod logs "Document would fail validation" with the same errInfo, and accepts the write.
      this.logger.warn(`embedded-mongo: Document would fail validation (validationAction: warn)`, { namespace: collection.ns, document: doc, errInfo });
      return;
    }
    throw new EngineError(ErrorCodes.DocumentValidationFailure, "Document failed validation", { errInfo });
  }

  private attach(collection: CollectionData): void {
    let db = this.databases.get(collection.db);
    if (!db) {
      db = new Map();
      this.databases.set(collection.db, db);
    }
    db.set(collection.name, collection);
  }

  private detach(collection: CollectionData): void {
    const db = this.databases.get(collection.db);
    if (!db) return;
    db.delete(collection.name);
    // A database exists only while it holds collections (as listDatabases reports them).
    if (db.size === 0) this.databases.delete(collection.db);
  }
}

/** Keys for every index but `_id_` (which the `_id` map already guards). */
function secondaryKeys(collection: CollectionData, doc: Document): Array<[CollectionIndex, IndexKey[]]> {
  const out: Array<[CollectionIndex, IndexKey[]]> = [];
  for (const index of collection.indexes.values()) {
    if (index.name !== "_id_") out.push([index, index.keysOf(doc)]);
  }
  return out;
}

function sameKeys(index: CollectionIndex, a: IndexKey[], b: IndexKey[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (index.compareKeys(a[i]!, b[i]!) !== 0) return false;
  }
  return true;
}

/**
 * Compiles a collection's `validator` (undefined when it has none).
 *
 * @example
 * collection.validate = compileValidator({email: {$type: "string"}});
 */
export function compileValidator(validator: Document | undefined): ((doc: Document) => boolean) | undefined {
  if (validator === undefined || Object.keys(validator).length === 0) return undefined;
  const matcher = compileFilter(validator);
  return (doc) => matcher.matches(doc);
}

/** The `other` options after a `collMod` (the same object when it changes none of them). */
function collModOther(other: Document | undefined, op: CollModOp): Document | undefined {
  if (!op.changeStreamPreAndPostImages && !op.view) return other;
  const next: Document = { ...(other ?? {}) };
  if (op.changeStreamPreAndPostImages) {
    if (op.changeStreamPreAndPostImages.enabled) next["changeStreamPreAndPostImages"] = { enabled: true };
    else delete next["changeStreamPreAndPostImages"];
  }
  if (op.view) Object.assign(next, { viewOn: op.view.viewOn, pipeline: op.view.pipeline });
  return next;
}

/**
 * Writes to a view: CommandNotSupportedOnView (166), as mongod.
 *
 * @example
 * if (collection.view) throw notOnView(collection.ns);
 */
export function notOnView(ns: string): EngineError {
  return new EngineError(ErrorCodes.CommandNotSupportedOnView, `Namespace ${ns} is a view, not a collection`);
}

function writeConflict(): EngineError {
  return new EngineError(
    ErrorCodes.WriteConflict,
    "Write conflict during plan execution and yielding is disabled.",
    { errorLabels: ["TransientTransactionError"] },
  );
}
