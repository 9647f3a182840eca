import type { Binary, Document } from "bson";
import { equalityKey } from "../query/index.js";
import { CollectionIndex } from "./collection-index.js";
import { idIndexSpec } from "./index-spec.js";
import type { StoredRecord } from "./stored-record.js";
import { preAndPostImagesEnabled, viewDefinitionOf } from "./collection-options.js";
import type { ViewDefinition } from "./collection-options.js";
import type { CollectionOptions } from "./write-ops.js";

/**
 * One collection's documents and indexes. `records` maps `equalityKey(_id)` to the record and
 * keeps insertion order, which is the natural order of a collection scan (as WiredTiger's record
 * ids are). Only `Storage.commit` mutates a collection; everything else reads.
 *
 * @example
 * const record = collection.findById(id); // O(1), through the _id map
 */
export class CollectionData {
  readonly records = new Map<string, StoredRecord>();
  /** Every index by name, `_id_` first. */
  readonly indexes = new Map<string, CollectionIndex>();
  nextRid = 1;
  /** Compiled `options.validator`, when there is one. */
  validate: ((doc: Document) => boolean) | undefined;

  constructor(
    public db: string,
    public name: string,
    readonly uuid: Binary,
    public options: CollectionOptions,
  ) {
    const idIndex = new CollectionIndex(idIndexSpec());
    this.indexes.set(idIndex.name, idIndex);
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get idIndex(): CollectionIndex {
    return this.indexes.get("_id_")!;
  }

  get count(): number {
    return this.records.size;
  }

  findById(id: unknown): StoredRecord | undefined {
    return this.records.get(equalityKey(id));
  }

  /** The collection's default collation (`create` option), used when a command names none. */
  get defaultCollation(): Document | undefined {
    const collation = this.options.other?.["collation"] as Document | undefined;
    return collation && collation["locale"] !== "simple" ? collation : undefined;
  }

  /** The view this entry is (`create` with `viewOn`): it holds no documents and refuses writes. */
  get view(): ViewDefinition | undefined {
    return viewDefinitionOf(this.options);
  }

  /**
   * `changeStreamPreAndPostImages: {enabled: true}`: updates and deletes keep the images change
   * streams may ask for (`fullDocument: "whenAvailable" | "required"`, `fullDocumentBeforeChange`).
   */
  get recordsImages(): boolean {
    return preAndPostImagesEnabled(this.options);
  }

  /** `listCollections`' `options` document. */
  optionsDocument(): Document {
    const out: Document = { ...(this.options.other ?? {}) };
    if (this.options.validator !== undefined) out["validator"] = this.options.validator;
    if (this.options.validationLevel !== undefined) out["validationLevel"] = this.options.validationLevel;
    if (this.options.validationAction !== undefined) out["validationAction"] = this.options.validationAction;
    return out;
  }
}
