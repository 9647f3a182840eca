import { calculateObjectSize } from "bson";
import type { CollectionData } from "./collection-data.js";

/**
 * The BSON size of a collection's documents (dataSize in dbStats/collStats). Uses cached
 * serializations when present; computed on demand since stats are rare and collections small.
 *
 * @example
 * collectionDataSize(users); // 48213
 */
export function collectionDataSize(collection: CollectionData): number {
  let size = 0;
  for (const record of collection.records.values()) size += record.bytes?.length ?? calculateObjectSize(record.doc);
  return size;
}

/** A rough per-entry index size estimate (the engine does not track index memory exactly). */
export function indexSizeEstimate(entries: number): number {
  return entries * 32;
}
