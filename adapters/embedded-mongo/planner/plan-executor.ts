import type { Document } from "bson";
import type { CollectionData } from "../storage/collection-data.js";
import type { IndexEntry } from "../storage/collection-index.js";
import type { StoredRecord } from "../storage/stored-record.js";
import { compareToEdge } from "./index-bounds.js";
import type { BoundEdge } from "./index-bounds.js";
import type { KeyRange, QueryPlan } from "./query-planner.js";

/** Counters `explain` reports as `executionStats`. */
export interface ExecutionStats {
  keysExamined: number;
  docsExamined: number;
}

/**
 * Runs a plan lazily: yields the records whose current document passes `matches`, in plan order,
 * counting keys and documents examined. Laziness lets `find` stop at its first batch and keep the
 * generator suspended inside a cursor until `getMore`; index scans survive writes in between
 * (see BPlusTree.scan) and collection scans walk a live Map.
 *
 * @example
 * for (const record of executePlan(plan, collection, (doc) => matcher.matches(doc), stats)) ...
 */
export function* executePlan(
  plan: QueryPlan,
  collection: CollectionData | undefined,
  matches: (doc: Document) => boolean,
  stats: ExecutionStats,
): Generator<StoredRecord, void, undefined> {
  if (!collection || plan.stage === "EOF") return;
  switch (plan.stage) {
    case "IDHACK": {
      const record = collection.findById(plan.id);
      if (!record) return;
      stats.keysExamined += 1;
      stats.docsExamined += 1;
      if (matches(record.doc)) yield record;
      return;
    }
    case "COLLSCAN": {
      const records = plan.direction === 1 ? collection.records.values() : [...collection.records.values()].reverse();
      for (const record of records) {
        stats.docsExamined += 1;
        if (matches(record.doc)) yield record;
      }
      return;
    }
    case "IXSCAN": {
      const { index } = plan;
      const directions = index.spec.fields.map((field) => (field.direction === -1 ? -1 : 1));
      const compare = (key: readonly unknown[], edges: readonly BoundEdge[]): number => {
        for (let i = 0; i < edges.length; i++) {
          const c = compareToEdge(key[i], edges[i]!, index.collation) * directions[i]!;
          if (c !== 0) return c;
        }
        return 0;
      };
      // One document can be reached through several keys (multikey, overlapping $in ranges).
      const seen = index.multikey || plan.ranges.length > 1 ? new Set<number>() : undefined;
      for (const range of plan.ranges) {
        for (const entry of scanRange(index.tree, range, plan.direction, compare)) {
          stats.keysExamined += 1;
          const record = entry.record;
          if (seen) {
            if (seen.has(record.rid)) continue;
            seen.add(record.rid);
          }
          // The entry may outlive its record (deleted after this scan started).
          if (record.removed) continue;
          stats.docsExamined += 1;
          if (matches(record.doc)) yield record;
        }
      }
      return;
    }
  }
}

function* scanRange(
  tree: CollectionData["idIndex"]["tree"],
  range: KeyRange,
  direction: 1 | -1,
  compare: (key: readonly unknown[], edges: readonly BoundEdge[]) => number,
): Generator<IndexEntry, void, undefined> {
  if (direction === 1) {
    const start = tree.seek((entry) => compare(entry.key, range.low) < 0);
    for (const entry of tree.scan(start, "forward")) {
      if (compare(entry.key, range.high) > 0) return;
      yield entry;
    }
  } else {
    const start = tree.seek((entry) => compare(entry.key, range.high) <= 0);
    for (const entry of tree.scan(start, "backward")) {
      if (compare(entry.key, range.low) < 0) return;
      yield entry;
    }
  }
}
