import type { Document } from "bson";
import type { EngineLogger } from "../engine-logger.js";
import type { Storage } from "./storage.js";

/**
 * Deletes documents whose TTL index date is older than `expireAfterSeconds`, like mongod's
 * TTLMonitor: a document expires when the indexed field is a date (for an array, its earliest
 * date) at or before now − expireAfterSeconds. Deletes go through `Storage.commit`, so they reach
 * the oplog (change streams see them) like any other delete. Returns the number deleted.
 *
 * @example
 * sweepExpiredDocuments(storage, logger, Date.now()); // 3
 */
export function sweepExpiredDocuments(storage: Storage, logger: EngineLogger, now: number): number {
  let deleted = 0;
  for (const db of storage.databaseNames()) {
    for (const collection of storage.collections(db)) {
      for (const index of collection.indexes.values()) {
        const expireAfterSeconds = index.spec.expireAfterSeconds;
        if (expireAfterSeconds === undefined) continue;
        const cutoff = now - expireAfterSeconds * 1000;
        const expired = new Map<number, Document>();
        for (const entry of index.tree.values()) {
          const value = entry.key[0];
          if (value instanceof Date && value.getTime() <= cutoff) expired.set(entry.record.rid, entry.record.doc);
        }
        for (const before of expired.values()) {
          try {
            storage.commit({ ops: [{ op: "delete", db, collection: collection.name, before }] });
            deleted += 1;
          } catch (error) {
            logger.warn(`embedded-mongo: TTL delete failed in ${collection.ns}`, error);
          }
        }
      }
    }
  }
  return deleted;
}
