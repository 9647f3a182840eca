import { serialize } from "bson";
import type { Binary, Document, Long, Timestamp } from "bson";
import { parseBson } from "../wire/bson-codec.js";
import type { OplogEntry, UpdateDescription } from "../storage/write-ops.js";

/**
 * What the journal keeps of an oplog entry: everything replay and the retryable-write table
 * need (`op`, `ns`, `o`, `o2`, `ui`, `ts`, `wall`, `lsid`, `txnNumber`) plus `updateDescription`
 * (cheap, and it is what tells an "update" from a "replace" event). Not `preImage`/`postImage`:
 * the post-image is `o`, and the pre-image is whatever replay finds stored at that point.
 */
export interface JournalEntry {
  readonly op: OplogEntry["op"];
  readonly ns: string;
  readonly o: Document;
  readonly o2?: Document;
  readonly ui?: Binary;
  readonly ts: Timestamp;
  readonly wall: Date;
  readonly lsid?: Document;
  readonly txnNumber?: Long;
  readonly updateDescription?: UpdateDescription;
}

/**
 * Serializes one committed entry as a BSON document. Absent fields are left out rather than
 * written as `undefined` (which BSON would turn into null).
 *
 * @example
 * const bytes = encodeEntry(entries[0]); // one BSON document
 */
export function encodeEntry(entry: OplogEntry): Uint8Array {
  const out: Document = { op: entry.op, ns: entry.ns, ts: entry.ts, wall: entry.wall, o: entry.o };
  if (entry.o2 !== undefined) out["o2"] = entry.o2;
  if (entry.ui !== undefined) out["ui"] = entry.ui;
  if (entry.lsid !== undefined) out["lsid"] = entry.lsid;
  if (entry.txnNumber !== undefined) out["txnNumber"] = entry.txnNumber;
  if (entry.updateDescription !== undefined) out["updateDescription"] = entry.updateDescription;
  return serialize(out);
}

/**
 * Splits a record payload (BSON documents back to back) and parses each with the engine's
 * type-preserving options, so a replayed document is the object the wire layer would have
 * stored (Int32 stays Int32, Double stays Double...).
 *
 * @example
 * splitDocuments(payload).map(decodeEntry);
 */
export function splitDocuments(payload: Uint8Array): Document[] {
  const documents: Document[] = [];
  let offset = 0;
  while (offset < payload.length) {
    if (payload.length - offset < 5) throw new Error(`truncated BSON document at payload offset ${offset}`);
    const length = (payload[offset]! | (payload[offset + 1]! << 8) | (payload[offset + 2]! << 16) | (payload[offset + 3]! << 24)) >>> 0;
    if (length < 5 || offset + length > payload.length) throw new Error(`bad BSON document length ${length} at payload offset ${offset}`);
    documents.push(parseBson(payload.subarray(offset, offset + length)));
    offset += length;
  }
  return documents;
}

/**
 * Checks the shape of a parsed journal entry (the checksum already vouched for the bytes; this
 * guards against a format mix-up) and returns it typed.
 *
 * @example
 * const entry = decodeEntry(splitDocuments(payload)[0]);
 */
export function decodeEntry(document: Document): JournalEntry {
  const { op, ns, o, ts, wall } = document;
  if ((op !== "i" && op !== "u" && op !== "d" && op !== "c") || typeof ns !== "string" || typeof o !== "object" || o === null) {
    throw new Error(`not a journal entry: ${JSON.stringify(Object.keys(document))}`);
  }
  if (ts?._bsontype !== "Timestamp" || !(wall instanceof Date)) throw new Error("journal entry without ts/wall");
  return document as JournalEntry;
}
