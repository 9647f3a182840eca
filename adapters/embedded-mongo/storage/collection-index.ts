import type { Document } from "bson";
import { compareBson, compileFilter } from "../query/index.js";
import type { Collation } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { BPlusTree } from "./b-plus-tree.js";
import type { IndexSpec } from "./index-spec.js";
import { extractIndexKeys } from "./index-keys.js";
import type { IndexKey } from "./index-keys.js";
import type { StoredRecord } from "./stored-record.js";

/** One entry of an index tree: a key and the record it points to. */
export interface IndexEntry {
  readonly key: IndexKey;
  readonly record: StoredRecord;
}

/**
 * An index over one collection: a B+tree of `(key, record id)` entries ordered by BSON order with
 * each field's direction applied, so a forward scan returns documents in key-pattern sort order.
 * Knows which documents it covers (sparse, partial) and enforces uniqueness.
 *
 * @example
 * const index = new CollectionIndex(parseIndexSpec({key: {email: 1}, name: "email_1", unique: true}));
 * index.conflictFor(index.keysOf(doc), record.rid); // the entry a duplicate would collide with
 */
export class CollectionIndex {
  readonly tree: BPlusTree<IndexEntry>;
  /** Set once any document had an array in an indexed field (range bounds then stay one-sided). */
  multikey = false;
  private readonly partialMatcher: ((doc: Document) => boolean) | undefined;
  private readonly directions: readonly number[];
  /** Strings in keys compare under the index's collation (case-insensitive unique indexes). */
  readonly collation: Collation | undefined;

  constructor(public spec: IndexSpec) {
    this.directions = spec.fields.map((field) => (field.direction === -1 ? -1 : 1));
    this.collation = spec.collation as Collation | undefined;
    this.partialMatcher = spec.partialFilterExpression
      ? compilePartialFilter(spec.partialFilterExpression)
      : undefined;
    this.tree = new BPlusTree<IndexEntry>((a, b) => this.compareEntries(a, b));
  }

  get name(): string {
    return this.spec.name;
  }

  /** Compares two keys field by field in index order (directions applied). */
  compareKeys(a: IndexKey, b: IndexKey): number {
    for (let i = 0; i < this.directions.length; i++) {
      const c = compareBson(a[i], b[i], this.collation);
      if (c !== 0) return c * this.directions[i]!;
    }
    return 0;
  }

  /** The keys a document contributes ([] when sparse/partial rules exclude it). */
  keysOf(doc: Document): IndexKey[] {
    if (this.partialMatcher && !this.partialMatcher(doc)) return [];
    const extracted = extractIndexKeys(doc, this.spec.fields);
    if (this.spec.sparse && extracted.allMissing) return [];
    if (extracted.multikey) this.multikey = true;
    return extracted.keys;
  }

  add(record: StoredRecord, keys: readonly IndexKey[]): void {
    for (const key of keys) this.tree.insert({ key, record });
  }

  remove(record: StoredRecord, keys: readonly IndexKey[]): void {
    for (const key of keys) this.tree.delete({ key, record });
  }

  /**
   * For a unique index: the entry of another record holding one of `keys`, if any.
   * `rid` is the record being written (its own old entries are not conflicts).
   */
  conflictFor(keys: readonly IndexKey[], rid: number): IndexEntry | undefined {
    if (!this.spec.unique) return undefined;
    for (const key of keys) {
      const start = this.tree.seek((entry) => this.compareKeys(entry.key, key) < 0);
      for (const entry of this.tree.scan(start, "forward")) {
        if (this.compareKeys(entry.key, key) !== 0) break;
        if (entry.record.rid !== rid) return entry;
      }
    }
    return undefined;
  }

  private compareEntries(a: IndexEntry, b: IndexEntry): number {
    return this.compareKeys(a.key, b.key) || a.record.rid - b.record.rid;
  }
}

function compilePartialFilter(filter: Document): (doc: Document) => boolean {
  try {
    const matcher = compileFilter(filter);
    return (doc) => matcher.matches(doc);
  } catch (error) {
    if (error instanceof EngineError) {
      throw new EngineError(ErrorCodes.CannotCreateIndex, `Error in specification: partialFilterExpression: ${error.message}`);
    }
    throw error;
  }
}
