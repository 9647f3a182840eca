import { deserialize, serialize } from "bson";
import type { Document } from "bson";

/**
 * The one set of options every incoming document is parsed with: values keep their exact BSON
 * type (Int32, Double, Long, Decimal128 stay wrapper objects; regexes stay `BSONRegExp`) so that
 * storing and re-serializing a document reproduces it byte for byte.
 */
export const DESERIALIZE_OPTIONS = Object.freeze({
  promoteValues: false,
  bsonRegExp: true,
  promoteBuffers: false,
} as const);

/**
 * Parses one BSON document with the engine's type-preserving options.
 *
 * @example
 * const doc = parseBson(bytes); // {n: Int32(1), x: Double(1.5)}
 */
export function parseBson(bytes: Uint8Array): Document {
  return deserialize(bytes, DESERIALIZE_OPTIONS);
}

/**
 * Serializes a document into a Node Buffer that shares the bytes `bson` produced (no copy).
 *
 * @example
 * socket.write(encodeBson({ok: 1}));
 */
export function encodeBson(doc: Document): Buffer {
  const bytes = serialize(doc);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
