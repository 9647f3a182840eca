import type { Binary, Document } from "bson";
import { equalityKey } from "../query/index.js";

/**
 * The session table key of an `lsid`: a canonical string for `lsid.id` (two lsids get the same key
 * exactly when their ids are equal, as with `equalityKey`). It runs on every command that carries
 * an `lsid` — with retryable writes on, every driver command — so the UUID drivers send is
 * packed into 8 UTF-16 units in one flat string (hashed fast by the table's Map) rather than
 * base64-encoded through a Buffer. Anything else falls back to `equalityKey`; the `\u0001` prefix
 * keeps the two forms apart (`equalityKey` strings start with a type letter).
 *
 * Cursors carry `equalityKey(lsid.id)` as their `sessionKey`: to kill a session's cursors, use
 * `equalityKey(session.lsid.id)`, not this key.
 *
 * @example
 * sessionKeyOf({id: uuid}) === sessionKeyOf({id: new UUID(uuid.toHexString())}); // true
 */
export function sessionKeyOf(lsid: Document): string {
  const id = lsid["id"] as Binary | undefined;
  if (id !== null && typeof id === "object" && id._bsontype === "Binary" && id.sub_type === 4 && id.position === 16) {
    const b = id.buffer;
    return String.fromCharCode(
      1,
      (b[0]! << 8) | b[1]!,
      (b[2]! << 8) | b[3]!,
      (b[4]! << 8) | b[5]!,
      (b[6]! << 8) | b[7]!,
      (b[8]! << 8) | b[9]!,
      (b[10]! << 8) | b[11]!,
      (b[12]! << 8) | b[13]!,
      (b[14]! << 8) | b[15]!,
    );
  }
  return equalityKey(id);
}
