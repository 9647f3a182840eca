import { BSON } from "mongodb";
import { toEntity } from "./entity-shape.js";

/** Fields of a stored document that are bookkeeping, not the entity's data (as in `entityData`). */
const SKIPPED = new Set(["__v", "_syncSeq", "_syncStream"]);

/** A value this encoder does not write itself: the document goes the decoded way instead. */
class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported("unsupported BSON value");

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Writes entities of raw BSON documents as UTF-8 JSON into one growing buffer, without decoding
 * them into objects: each entity's text parses to `toEntity(BSON.deserialize(bytes))` (the
 * driver's default decoding). Snapshot pages carry up to a thousand documents, and decoding each
 * into objects only to serialise them again was most of a page's cost; strings are copied as the
 * UTF-8 bytes they already are. Values other than strings, numbers, booleans, null, dates,
 * ObjectIds, documents and arrays (binary, decimals, 64-bit integers beyond 2^53...) and a
 * document whose `_id` is not its first field are rare in synced models: such a document is
 * decoded and serialised the usual way.
 *
 * @example
 * const writer = new EntityJsonWriter();
 * const { seq, start, end } = writer.append(rawDocument); // writer.bytes().subarray(start, end) is its JSON
 */
export class EntityJsonWriter {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private length = 0;

  /** Appends one entity; where its text is in `bytes()`, and its seq. */
  append(bytes: Uint8Array): { seq: number; start: number; end: number } {
    const source = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const start = this.length;
    try {
      const seq = this.entity(source);
      return { seq, start, end: this.length };
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      this.length = start;
      const entity = toEntity(BSON.deserialize(source));
      this.text(JSON.stringify(entity));
      return { seq: entity.seq, start, end: this.length };
    }
  }

  /** Everything written so far (a view, valid until the next append). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private entity(source: Buffer): number {
    const end = source.readInt32LE(0) - 1;
    // `_id` first, as the server stores it: the entity's text starts with it.
    if (source[4] !== 2 || source[5] !== 0x5f || source[6] !== 0x69 || source[7] !== 0x64 || source[8] !== 0) throw UNSUPPORTED;
    const idLength = source.readInt32LE(9);
    const idStart = 13;
    const idEnd = idStart + idLength - 1;
    this.ascii('{"id":');
    this.quoted(source, idStart, idEnd);
    this.ascii(',"data":{"id":');
    this.quoted(source, idStart, idEnd);
    let offset = idEnd + 1;
    let seq = 0;
    let deleted = false;
    while (offset < end) {
      const type = source[offset]!;
      const nameStart = offset + 1;
      const nameEnd = cstringEnd(source, nameStart);
      offset = nameEnd + 1;
      // Bookkeeping names start with "_" (and "deleted" with "d"): only those are decoded to compare.
      const name = source[nameStart] === 0x5f || source[nameStart] === 0x64 ? source.toString("latin1", nameStart, nameEnd) : "";
      if (name === "_syncSeq") seq = readNumber(source, offset, type);
      else if (!SKIPPED.has(name)) {
        if (name === "deleted") deleted = type === 8 && source[offset] === 1;
        this.byte(0x2c);
        this.quoted(source, nameStart, nameEnd);
        this.byte(0x3a);
        this.value(source, offset, type);
      }
      offset = skipValue(source, offset, type);
    }
    this.ascii(`},"seq":${JSON.stringify(seq)},"deleted":${deleted}}`);
    return seq;
  }

  private value(source: Buffer, offset: number, type: number): void {
    switch (type) {
      case 1:
      case 18:
        return this.ascii(JSON.stringify(readNumber(source, offset, type)));
      case 16:
        return this.ascii(String(source.readInt32LE(offset)));
      case 2:
        return this.quoted(source, offset + 4, offset + 4 + source.readInt32LE(offset) - 1);
      case 3:
      case 4:
        return this.container(source, offset, type === 4);
      case 7:
        return this.ascii(`"${source.toString("hex", offset, offset + 12)}"`);
      case 8:
        return this.ascii(source[offset] === 1 ? "true" : "false");
      case 9:
        return this.ascii(JSON.stringify(new Date(Number(source.readBigInt64LE(offset)))));
      case 10:
        return this.ascii("null");
      default:
        throw UNSUPPORTED;
    }
  }

  private container(source: Buffer, start: number, array: boolean): void {
    const end = start + source.readInt32LE(start) - 1;
    let offset = start + 4;
    let first = true;
    this.byte(array ? 0x5b : 0x7b);
    while (offset < end) {
      const type = source[offset]!;
      const nameStart = offset + 1;
      const nameEnd = cstringEnd(source, nameStart);
      offset = nameEnd + 1;
      if (!first) this.byte(0x2c);
      first = false;
      if (!array) {
        this.quoted(source, nameStart, nameEnd);
        this.byte(0x3a);
      }
      this.value(source, offset, type);
      offset = skipValue(source, offset, type);
    }
    this.byte(array ? 0x5d : 0x7d);
  }

  /** A JSON string of UTF-8 bytes: copied as they are unless something in them needs escaping. */
  private quoted(source: Buffer, start: number, end: number): void {
    this.reserve(end - start + 2);
    const target = this.buffer;
    let at = this.length;
    target[at++] = QUOTE;
    // One pass that copies and checks; short strings (most fields) in JS, since a native copy
    // costs more to call than to run.
    for (let i = start; i < end; i++) {
      const c = source[i]!;
      if (c < 0x20 || c === QUOTE || c === BACKSLASH) return this.text(JSON.stringify(source.toString("utf8", start, end)));
      target[at++] = c;
    }
    target[at++] = QUOTE;
    this.length = at;
  }

  private byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  /** Text known to be ASCII (numbers, punctuation, literals). */
  private ascii(text: string): void {
    this.reserve(text.length);
    const target = this.buffer;
    let at = this.length;
    for (let i = 0; i < text.length; i++) target[at++] = text.charCodeAt(i);
    this.length = at;
  }

  private text(text: string): void {
    this.reserve(Buffer.byteLength(text));
    this.length += this.buffer.write(text, this.length, "utf8");
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

function cstringEnd(source: Buffer, start: number): number {
  let at = start;
  while (source[at] !== 0) at++;
  return at;
}

function readNumber(source: Buffer, offset: number, type: number): number {
  if (type === 1) return source.readDoubleLE(offset);
  if (type === 16) return source.readInt32LE(offset);
  if (type === 18) {
    const value = source.readBigInt64LE(offset);
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw UNSUPPORTED;
    return Number(value);
  }
  throw UNSUPPORTED;
}

/** The offset after the value of `type` at `offset` (every type, so skipped fields may be any). */
function skipValue(source: Buffer, offset: number, type: number): number {
  switch (type) {
    case 1:
    case 9:
    case 17:
    case 18:
      return offset + 8;
    case 2:
    case 13:
    case 14:
      return offset + 4 + source.readInt32LE(offset);
    case 3:
    case 4:
    case 15:
      return offset + source.readInt32LE(offset);
    case 5:
      return offset + 5 + source.readInt32LE(offset);
    case 6:
    case 10:
    case 127:
    case 255:
      return offset;
    case 7:
      return offset + 12;
    case 8:
      return offset + 1;
    case 11: {
      const patternEnd = source.indexOf(0, offset);
      return source.indexOf(0, patternEnd + 1) + 1;
    }
    case 12:
      return offset + 4 + source.readInt32LE(offset) + 12;
    case 16:
      return offset + 4;
    case 19:
      return offset + 16;
    default:
      throw UNSUPPORTED;
  }
}
