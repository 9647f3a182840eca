import { crc32c } from "./crc32c.js";

/**
 * The framing shared by journal segments and snapshots: every record is
 *
 * ```
 * [u32 LE payload length][u32 LE CRC-32C of (the 4 length bytes ‖ payload)][payload]
 * ```
 *
 * and a payload is one or more BSON documents back to back (each starts with its own int32
 * length, so no further framing is needed). The checksum covers the length field too, so a
 * damaged length is caught by the same check as a damaged payload.
 */
export const RECORD_HEADER_BYTES = 8;

/** Smallest payload: one empty BSON document. */
const MIN_PAYLOAD_BYTES = 5;

/** A sanity bound: larger lengths are damage, not data (a record is one commit batch). */
export const MAX_PAYLOAD_BYTES = 0x7fff_ffff - RECORD_HEADER_BYTES;

/**
 * Frames a payload given as parts (e.g. one serialized BSON document per oplog entry) into one
 * buffer ready to append.
 *
 * @example
 * const record = encodeRecord([serialize({a: 1}), serialize({b: 2})]);
 */
export function encodeRecord(parts: readonly Uint8Array[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  if (length > MAX_PAYLOAD_BYTES) throw new RangeError(`journal record of ${length} bytes is too large`);
  const record = Buffer.allocUnsafe(RECORD_HEADER_BYTES + length);
  record.writeUInt32LE(length, 0);
  let offset = RECORD_HEADER_BYTES;
  for (const part of parts) {
    record.set(part, offset);
    offset += part.length;
  }
  record.writeUInt32LE(crc32c(record.subarray(RECORD_HEADER_BYTES), crc32c(record.subarray(0, 4))), 4);
  return record;
}

/** What is found at an offset of a buffer holding (part of) a record file. */
export type RecordRead =
  | { readonly status: "ok"; readonly payload: Buffer; readonly end: number }
  /** The buffer ends before the record does: more bytes are needed, or (at end of file) it is torn. */
  | { readonly status: "incomplete"; readonly needed: number }
  /** The bytes there are not a record (bad length or checksum). */
  | { readonly status: "invalid"; readonly reason: string };

/**
 * Reads the record starting at `offset` of `buffer`.
 *
 * @example
 * const read = readRecord(bytes, 0);
 * if (read.status === "ok") splitDocuments(read.payload);
 */
export function readRecord(buffer: Buffer, offset: number): RecordRead {
  const available = buffer.length - offset;
  if (available < RECORD_HEADER_BYTES) return { status: "incomplete", needed: RECORD_HEADER_BYTES };
  const length = buffer.readUInt32LE(offset);
  if (length < MIN_PAYLOAD_BYTES || length > MAX_PAYLOAD_BYTES) {
    return { status: "invalid", reason: `implausible record length ${length}` };
  }
  // Cheap plausibility before waiting for (or checksumming) a possibly huge bogus length: the
  // payload starts with a BSON document whose own length fits inside the record.
  if (available >= RECORD_HEADER_BYTES + 4) {
    const firstDocument = buffer.readInt32LE(offset + RECORD_HEADER_BYTES);
    if (firstDocument < MIN_PAYLOAD_BYTES || firstDocument > length) {
      return { status: "invalid", reason: "record payload does not start with a BSON document" };
    }
  }
  const end = offset + RECORD_HEADER_BYTES + length;
  if (end > buffer.length) return { status: "incomplete", needed: RECORD_HEADER_BYTES + length };
  const expected = buffer.readUInt32LE(offset + 4);
  const actual = crc32c(buffer.subarray(offset + RECORD_HEADER_BYTES, end), crc32c(buffer.subarray(offset, offset + 4)));
  if (actual !== expected) return { status: "invalid", reason: "checksum mismatch" };
  return { status: "ok", payload: buffer.subarray(offset + RECORD_HEADER_BYTES, end), end };
}

/**
 * The offset of the first complete, valid record starting strictly after `offset`, or
 * `undefined`. Recovery uses it to tell a torn tail (nothing valid follows the damage: the last
 * write was cut short) from corruption in the middle (acknowledged records follow: refusing to
 * start is the only way not to drop them silently).
 *
 * @example
 * findValidRecordAfter(bytes, badOffset); // undefined → torn tail, safe to truncate
 */
export function findValidRecordAfter(buffer: Buffer, offset: number): number | undefined {
  for (let candidate = offset + 1; candidate + RECORD_HEADER_BYTES + MIN_PAYLOAD_BYTES <= buffer.length; candidate++) {
    if (plausibleRecordStart(buffer, candidate) && readRecord(buffer, candidate).status === "ok") return candidate;
  }
  return undefined;
}

/**
 * Cheap structural checks before a checksum: the record fits in the buffer and its payload opens
 * with a well-formed BSON document (sane length, NUL terminator, a valid first element type).
 * Scanning the inside of a large torn record byte by byte would otherwise checksum megabytes at
 * every offset whose bytes happen to look like a length.
 */
function plausibleRecordStart(buffer: Buffer, offset: number): boolean {
  const length = buffer.readUInt32LE(offset);
  if (length < MIN_PAYLOAD_BYTES || offset + RECORD_HEADER_BYTES + length > buffer.length) return false;
  const payload = offset + RECORD_HEADER_BYTES;
  const first = buffer.readInt32LE(payload);
  if (first < MIN_PAYLOAD_BYTES || first > length || buffer[payload + first - 1] !== 0) return false;
  const type = buffer[payload + 4]!;
  return type === 0 || (type >= 0x01 && type <= 0x13) || type === 0x7f || type === 0xff;
}
