import type { Document } from "bson";
import { parseBson } from "./bson-codec.js";
import { HEADER_SIZE, KNOWN_REQUIRED_MSG_FLAGS, MsgFlag, OpCode } from "./wire-constants.js";

/** A decoded OP_MSG request. */
export interface OpMsgRequest {
  readonly flags: number;
  /** The kind-0 body with every kind-1 document sequence merged in as an array field. */
  readonly command: Document;
  readonly moreToCome: boolean;
  readonly exhaustAllowed: boolean;
}

/** The message is well framed but not a valid OP_MSG: the connection is closed. */
export class MalformedMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedMessageError";
  }
}

/**
 * Decodes an OP_MSG body (the bytes after the 16-byte header) following the OP_MSG spec: a
 * uint32 flagBits, then sections until the end or the optional CRC-32C trailer, which we tolerate
 * without verifying (loopback TCP already guarantees integrity).
 *
 * @example
 * const {command} = decodeOpMsg(message.body); // {insert: "todos", documents: [...], $db: "app"}
 */
export function decodeOpMsg(body: Buffer): OpMsgRequest {
  if (body.length < 5) throw new MalformedMessageError("OP_MSG too short");
  const flags = body.readUInt32LE(0);
  const unknownRequired = flags & 0xffff & ~KNOWN_REQUIRED_MSG_FLAGS;
  if (unknownRequired !== 0) {
    throw new MalformedMessageError(`OP_MSG has unknown required flag bits 0x${unknownRequired.toString(16)}`);
  }
  const end = flags & MsgFlag.checksumPresent ? body.length - 4 : body.length;
  let command: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  let pos = 4;
  while (pos < end) {
    const kind = body[pos]!;
    pos += 1;
    if (kind === 0) {
      if (command) throw new MalformedMessageError("OP_MSG has more than one kind-0 section");
      const size = readSize(body, pos, end);
      command = parseSection(body.subarray(pos, pos + size));
      pos += size;
    } else if (kind === 1) {
      const size = readSize(body, pos, end);
      const sectionEnd = pos + size;
      let cursor = pos + 4;
      const nul = body.indexOf(0, cursor);
      if (nul < 0 || nul >= sectionEnd) throw new MalformedMessageError("unterminated sequence identifier");
      const identifier = body.toString("utf8", cursor, nul);
      cursor = nul + 1;
      const documents: Document[] = [];
      while (cursor < sectionEnd) {
        const docSize = readSize(body, cursor, sectionEnd);
        documents.push(parseSection(body.subarray(cursor, cursor + docSize)));
        cursor += docSize;
      }
      sequences.push([identifier, documents]);
      pos = sectionEnd;
    } else {
      throw new MalformedMessageError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (pos !== end) throw new MalformedMessageError("OP_MSG sections overrun the message");
  if (!command) throw new MalformedMessageError("OP_MSG has no kind-0 section");
  for (const [identifier, documents] of sequences) {
    if (Object.prototype.hasOwnProperty.call(command, identifier)) {
      throw new MalformedMessageError(`duplicate field '${identifier}' in body and document sequence`);
    }
    command[identifier] = documents;
  }
  return {
    flags,
    command,
    moreToCome: (flags & MsgFlag.moreToCome) !== 0,
    exhaustAllowed: (flags & MsgFlag.exhaustAllowed) !== 0,
  };
}

/**
 * Builds a complete OP_MSG reply (header included) around already-serialized body bytes.
 * `moreToCome` is only used for exhaust (streaming `hello`).
 *
 * @example
 * socket.write(encodeOpMsg(nextRequestId(), request.requestId, encodeBson({ok: 1})));
 */
export function encodeOpMsg(requestId: number, responseTo: number, body: Uint8Array, moreToCome = false): Buffer {
  const length = HEADER_SIZE + 4 + 1 + body.length;
  const out = Buffer.allocUnsafe(HEADER_SIZE + 5);
  out.writeInt32LE(length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(OpCode.OP_MSG, 12);
  out.writeUInt32LE(moreToCome ? MsgFlag.moreToCome : 0, 16);
  out.writeUInt8(0, 20);
  return Buffer.concat([out, body], length);
}

/** Reads a BSON/section int32 size at `pos` and checks it fits before `end`. */
export function readSize(buf: Buffer, pos: number, end: number): number {
  if (pos + 4 > end) throw new MalformedMessageError("truncated section");
  const size = buf.readInt32LE(pos);
  if (size < 5 || pos + size > end) throw new MalformedMessageError(`invalid section size ${size}`);
  return size;
}

function parseSection(bytes: Buffer): Document {
  try {
    return parseBson(bytes);
  } catch (error) {
    throw new MalformedMessageError(`invalid BSON: ${(error as Error).message}`);
  }
}
