import type { Document } from "bson";
import { equalityKey } from "../query/index.js";
import type { DocumentOverlay } from "../sessions/read-view.js";
import type { CollectionData } from "../storage/collection-data.js";
import { StoredRecord } from "../storage/stored-record.js";
import { executePlan } from "./plan-executor.js";
import type { ExecutionStats } from "./plan-executor.js";
import type { QueryPlan } from "./query-planner.js";

const EVERY_CANDIDATE = (): boolean => true;

/**
 * Runs a plan for a reader with an overlay (a transaction): the plan walks storage as it is, and
 * each candidate is replaced by the reader's version of it when the overlay has one (its own write,
 * or the version its snapshot saw); then the overlay's documents the plan did not reach are
 * examined (documents the reader inserted, or that others changed or deleted since its snapshot).
 * The filter is applied to the version the reader sees, so index bounds stay a superset.
 *
 * Order: storage order for documents as stored, overlay documents where the plan meets them or at
 * the end. A requested sort is therefore always done in memory over an overlay (`prepareQuery`).
 *
 * @example
 * for (const record of executePlanThroughOverlay(plan, collection, matches, stats, overlay)) ...
 */
export function* executePlanThroughOverlay(
  plan: QueryPlan,
  collection: CollectionData | undefined,
  matches: (doc: Document) => boolean,
  stats: ExecutionStats,
  overlay: DocumentOverlay,
): Generator<StoredRecord, void, undefined> {
  if (plan.stage === "IDHACK") {
    const version = overlay.get(equalityKey(plan.id));
    if (version === undefined) {
      yield* executePlan(plan, collection, matches, stats);
    } else if (version !== null) {
      stats.keysExamined += 1;
      stats.docsExamined += 1;
      if (matches(version)) yield overlayRecord(version);
    }
    return;
  }
  // Keys already judged: the overlay pass must not yield a document a second time, even when the
  // overlay gained an entry for it while this generator was suspended in a cursor.
  const judged = new Set<string>();
  for (const record of executePlan(plan, collection, EVERY_CANDIDATE, stats)) {
    const key = equalityKey(record.doc["_id"]);
    if (judged.has(key)) continue;
    judged.add(key);
    const version = overlay.get(key);
    if (version === undefined) {
      if (matches(record.doc)) yield record;
    } else if (version !== null && matches(version)) {
      yield overlayRecord(version);
    }
  }
  for (const [key, doc] of overlay.documents()) {
    if (judged.has(key)) continue;
    judged.add(key);
    stats.docsExamined += 1;
    if (matches(doc)) yield overlayRecord(doc);
  }
}

/** A record slot for a document that is not (or not yet) the stored one; never registered anywhere. */
function overlayRecord(doc: Document): StoredRecord {
  return new StoredRecord(-1, doc);
}
