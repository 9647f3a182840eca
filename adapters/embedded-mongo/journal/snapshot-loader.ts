import type { Binary, Document, Timestamp } from "bson";
import { optionNumber } from "../bson-number.js";
import { parseIndexSpec } from "../storage/index-spec.js";
import type { Storage } from "../storage/storage.js";
import type { WriteOp } from "../storage/write-ops.js";
import { splitDocuments } from "./entry-codec.js";
import { JournalError, JournalErrorCodes } from "./journal-error.js";
import { RecordFileReader } from "./record-file-reader.js";
import { collectionOptions } from "./replay-entry.js";

/** Inserts per commit while loading (bounds the undo list, keeps commits cheap). */
const INSERTS_PER_COMMIT = 1000;

/** What a loaded snapshot tells recovery. */
export interface LoadedSnapshot {
  readonly generation: number;
  readonly clock: Timestamp;
  readonly collections: number;
  readonly documents: number;
}

/**
 * Loads a snapshot written by `writeSnapshot` into an empty storage, through `Storage.commit`
 * like every other change: each collection is created with its UUID and options, its documents
 * inserted in their natural order, then its indexes built. Any damage is fatal — a snapshot is
 * only ever renamed into place once complete and fsynced, so a bad one is corruption, never a
 * torn write.
 *
 * @example
 * const {clock} = await loadSnapshot(storage, "/data/snapshot-0000000008.svcdb");
 */
export async function loadSnapshot(storage: Storage, file: string): Promise<LoadedSnapshot> {
  const reader = await RecordFileReader.open(file);
  try {
    let header: Document | undefined;
    let current: { db: string; name: string; indexes: Document[] } | undefined;
    let collections = 0;
    let documents = 0;
    let ended: Document | undefined;
    const finishCollection = (): void => {
      if (current && current.indexes.length > 0) {
        const specs = current.indexes.map((spec) => parseIndexSpec(spec));
        storage.commit({ ops: [{ op: "createIndexes", db: current.db, collection: current.name, specs }] });
      }
      current = undefined;
    };
    for (let record = await reader.next(); record; record = await reader.next()) {
      const fail = (message: string, cause?: unknown): JournalError =>
        new JournalError(JournalErrorCodes.Corrupt, `snapshot ${file} at offset ${record!.offset}: ${message}`, file, record!.offset, { cause });
      if (ended) throw fail("records after the end marker");
      let parts: Document[];
      try {
        parts = splitDocuments(record.payload);
      } catch (error) {
        throw fail((error as Error).message, error);
      }
      const first = parts[0]!;
      if (!header) {
        if (first["kind"] !== "snapshot" || optionNumber(first["format"]) !== 1) throw fail("not an svc-db snapshot (format 1)");
        header = first;
        continue;
      }
      try {
        switch (first["kind"]) {
          case "collection": {
            finishCollection();
            const db = String(first["db"]);
            const name = String(first["name"]);
            storage.commit({
              ops: [{ op: "createCollection", db, collection: name, options: collectionOptions(first["options"] as Document), uuid: first["uuid"] as Binary }],
            });
            current = { db, name, indexes: first["indexes"] as Document[] };
            collections += 1;
            break;
          }
          case "documents": {
            if (!current) throw new Error("documents before any collection");
            const { db, name } = current;
            for (let i = 1; i < parts.length; i += INSERTS_PER_COMMIT) {
              const ops: WriteOp[] = parts
                .slice(i, i + INSERTS_PER_COMMIT)
                .map((doc) => ({ op: "insert", db, collection: name, doc, bypassDocumentValidation: true }));
              storage.commit({ ops });
            }
            documents += parts.length - 1;
            break;
          }
          case "end":
            finishCollection();
            ended = first;
            break;
          default:
            throw new Error(`unknown record kind ${JSON.stringify(first["kind"])}`);
        }
      } catch (error) {
        if (error instanceof JournalError) throw error;
        throw fail((error as Error).message, error);
      }
    }
    const tail = await reader.tail();
    if (tail.damage) {
      throw new JournalError(
        JournalErrorCodes.Corrupt,
        `snapshot ${file} is damaged at offset ${tail.damage.offset} (${tail.damage.reason})`,
        file,
        tail.damage.offset,
      );
    }
    if (!header || !ended) {
      throw new JournalError(JournalErrorCodes.Corrupt, `snapshot ${file} is incomplete (no ${header ? "end marker" : "header"})`, file, tail.validEnd);
    }
    if (optionNumber(ended["documents"]) !== documents || optionNumber(ended["collections"]) !== collections) {
      throw new JournalError(JournalErrorCodes.Corrupt, `snapshot ${file}: the end marker's counts do not match its contents`, file, tail.validEnd);
    }
    return { generation: optionNumber(header["generation"]) ?? 0, clock: header["clock"] as Timestamp, collections, documents };
  } finally {
    await reader.close();
  }
}
