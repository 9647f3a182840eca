import { serialize } from "bson";
import type { Binary, Document, Timestamp } from "bson";
import { open, rename } from "node:fs/promises";
import type { Storage } from "../storage/storage.js";
import { snapshotPath, syncDirectory } from "./journal-files.js";
import { encodeRecord } from "./record-framing.js";

/** Documents per snapshot record are cut at about this many bytes of BSON. */
const RECORD_TARGET_BYTES = 1 << 20;

/** First document of a record of documents. */
const DOCUMENTS_MARKER = serialize({ kind: "documents" });

/** One collection as captured: its catalog entry and references to its (immutable) documents. */
interface CapturedCollection {
  readonly db: string;
  readonly name: string;
  readonly uuid: Binary;
  readonly options: Document;
  readonly indexes: readonly Document[];
  readonly documents: readonly Document[];
}

/**
 * The whole state at one instant, cheap to take: stored documents are never mutated (an update
 * stores a new object), so holding references is a consistent point-in-time copy that can be
 * serialized later, a megabyte at a time, while the engine keeps serving.
 */
export interface SnapshotCapture {
  readonly clock: Timestamp;
  readonly collections: readonly CapturedCollection[];
}

/**
 * Captures the state synchronously: catalog (databases, collections with UUID and options, index
 * specifications) and document references, plus the cluster clock.
 *
 * @example
 * const capture = captureSnapshot(engine.storage); // then, in the same tick, rotate the journal
 */
export function captureSnapshot(storage: Storage): SnapshotCapture {
  const collections: CapturedCollection[] = [];
  for (const db of storage.databaseNames()) {
    for (const collection of storage.collections(db)) {
      const indexes: Document[] = [];
      for (const index of collection.indexes.values()) if (index.name !== "_id_") indexes.push(index.spec.document);
      collections.push({
        db,
        name: collection.name,
        uuid: collection.uuid,
        options: collection.optionsDocument(),
        indexes,
        documents: Array.from(collection.records.values(), (record) => record.doc),
      });
    }
  }
  return { clock: storage.clock.current(), collections };
}

/**
 * Writes snapshot `generation` crash-safely: to `<name>.tmp`, fsynced, renamed over the final
 * name, directory fsynced. A crash at any point leaves either no snapshot N (the previous
 * snapshot and the segments after it still describe the state) or a complete one. Records:
 *
 * ```
 * {kind: "snapshot", format: 1, generation, clock, taken}
 * {kind: "collection", db, name, uuid, options, indexes: [spec...]}   once per collection, then
 * {kind: "documents"} doc doc doc ...                                  ≈1 MiB per record
 * {kind: "end", collections, documents}                               completeness marker
 * ```
 *
 * @example
 * await writeSnapshot("/data", 8, captureSnapshot(storage)); // → /data/snapshot-0000000008.svcdb
 */
export async function writeSnapshot(directory: string, generation: number, capture: SnapshotCapture): Promise<{ bytes: number; documents: number }> {
  const finalPath = snapshotPath(directory, generation);
  const temporary = `${finalPath}.tmp`;
  const handle = await open(temporary, "w");
  let bytes = 0;
  let documents = 0;
  try {
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    const emit = async (record: Buffer, force = false): Promise<void> => {
      chunk.push(record);
      chunkBytes += record.length;
      if (chunkBytes >= RECORD_TARGET_BYTES || force) {
        const data = Buffer.concat(chunk);
        chunk = [];
        chunkBytes = 0;
        let done = 0;
        while (done < data.length) done += (await handle.write(data, done, data.length - done)).bytesWritten;
        bytes += data.length;
      }
    };
    await emit(encodeRecord([serialize({ kind: "snapshot", format: 1, generation, clock: capture.clock, taken: new Date() })]));
    for (const collection of capture.collections) {
      const { db, name, uuid, options, indexes } = collection;
      await emit(encodeRecord([serialize({ kind: "collection", db, name, uuid, options, indexes })]));
      let parts: Uint8Array[] = [DOCUMENTS_MARKER];
      let partBytes = 0;
      for (const document of collection.documents) {
        const bson = serialize(document);
        parts.push(bson);
        partBytes += bson.length;
        documents += 1;
        if (partBytes >= RECORD_TARGET_BYTES) {
          await emit(encodeRecord(parts));
          parts = [DOCUMENTS_MARKER];
          partBytes = 0;
        }
      }
      if (parts.length > 1) await emit(encodeRecord(parts));
    }
    await emit(encodeRecord([serialize({ kind: "end", collections: capture.collections.length, documents })]), true);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, finalPath);
  await syncDirectory(directory);
  return { bytes, documents };
}
