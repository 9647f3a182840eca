// What the database holds, reduced to a count and a content hash per collection, so "nothing was
// written" can be checked after every refused request without keeping copies of the data.
import { createHash } from "node:crypto";
import mongoose from "mongoose";

/** Collection name → `count:hash` of its documents (in any order). */
export type DatabaseSnapshot = ReadonlyMap<string, string>;

/**
 * Reads every collection of the connection's database (system collections and views aside) and
 * hashes each document's BSON bytes. BSON rather than JSON so that a changed type
 * (an Int32 become a Double, a string become an ObjectId) counts as a write too.
 *
 * @example
 * const before = await snapshotDatabase(mongoose.connection);
 */
export async function snapshotDatabase(connection: mongoose.Connection = mongoose.connection): Promise<DatabaseSnapshot> {
  const db = connection.db;
  if (!db) throw new Error("snapshotDatabase: the mongoose connection is not open");
  const names = (await db.listCollections({}, { nameOnly: true }).toArray())
    .filter(({ name, type }) => !name.startsWith("system.") && type !== "view")
    .map(({ name }) => name)
    .sort();
  const snapshot = new Map<string, string>();
  if (names.length === 0) return snapshot;
  // One aggregation over every collection: a snapshot per request must cost one round trip, not
  // one per collection (each costs milliseconds on the embedded engine). Unsorted: each document
  // is hashed alone and the hashes are summed, which no order changes.
  const tagged = (name: string) => [{ $project: { _id: 0, collection: name, document: "$$ROOT" } }];
  const documents = (await db
    .collection(names[0]!)
    // Raw: each answer stays the BSON bytes the server sent (every value with its BSON type:
    // Int32, Double, Long), hashed as they are instead of decoded and encoded again.
    .aggregate([...tagged(names[0]!), ...names.slice(1).map((coll) => ({ $unionWith: { coll, pipeline: tagged(coll) } }))], { raw: true })
    .toArray()) as unknown as Buffer[];
  const sums = new Map(names.map((name) => [name, { sum: 0n, count: 0 }]));
  for (const bytes of documents) {
    const { collection, document } = taggedDocument(bytes);
    const entry = sums.get(collection)!;
    const digest = createHash("sha256").update(document).digest();
    entry.sum = (entry.sum + digest.readBigUInt64BE(0)) & 0xffff_ffff_ffff_ffffn;
    entry.count += 1;
  }
  for (const [name, { sum, count }] of sums) snapshot.set(name, `${count}:${sum.toString(16).padStart(16, "0")}`);
  return snapshot;
}

/** A raw `{collection, document}` answer: the name decoded, the document left as its own BSON bytes. */
function taggedDocument(bytes: Buffer): { collection: string; document: Buffer } {
  // bson's `raw` decodes the top level and hands each embedded document over as its bytes.
  const { collection, document } = mongoose.mongo.BSON.deserialize(bytes, { raw: true }) as { collection?: unknown; document?: unknown };
  if (typeof collection !== "string" || !Buffer.isBuffer(document)) throw new Error("snapshotDatabase: a tagged document without its collection or document");
  return { collection, document };
}

/**
 * The collections whose content differs between two snapshots, each as `name (before → after)`;
 * empty when nothing changed. Collections listed in `ignore` are left out.
 *
 * @example
 * changedCollections(before, after); // ["todos (3:ab12… → 4:cd34…)"]
 */
export function changedCollections(before: DatabaseSnapshot, after: DatabaseSnapshot, ignore: ReadonlySet<string> = new Set()): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  const changed: string[] = [];
  for (const name of [...names].sort()) {
    if (ignore.has(name)) continue;
    const was = before.get(name) ?? "absent";
    const now = after.get(name) ?? "absent";
    // A collection created empty (an index build, a lazily made collection) holds no write.
    if (was !== now && !(was === "absent" && now.startsWith("0:")) && !(now === "absent" && was.startsWith("0:"))) {
      changed.push(`${name} (${was} → ${now})`);
    }
  }
  return changed;
}
