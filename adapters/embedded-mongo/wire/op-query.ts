import type { Document } from "bson";
import { parseBson } from "./bson-codec.js";
import { MalformedMessageError, readSize } from "./op-msg.js";
import { HEADER_SIZE, OpCode, REPLY_AWAIT_CAPABLE } from "./wire-constants.js";

/** A decoded legacy OP_QUERY: drivers only send it for the very first `isMaster`/`hello`. */
export interface OpQueryRequest {
  /** `db.$cmd` for commands. */
  readonly fullCollectionName: string;
  readonly query: Document;
}

/**
 * Decodes an OP_QUERY body: int32 flags, cstring fullCollectionName, int32 numberToSkip,
 * int32 numberToReturn, the query document, and an optional field selector we ignore.
 *
 * @example
 * const {fullCollectionName, query} = decodeOpQuery(message.body); // "admin.$cmd", {isMaster: 1}
 */
export function decodeOpQuery(body: Buffer): OpQueryRequest {
  const nul = body.indexOf(0, 4);
  if (body.length < 4 || nul < 0) throw new MalformedMessageError("OP_QUERY without a collection name");
  const fullCollectionName = body.toString("utf8", 4, nul);
  const queryStart = nul + 1 + 8;
  const size = readSize(body, queryStart, body.length);
  let query: Document;
  try {
    query = parseBson(body.subarray(queryStart, queryStart + size));
  } catch (error) {
    throw new MalformedMessageError(`invalid BSON in OP_QUERY: ${(error as Error).message}`);
  }
  return { fullCollectionName, query };
}

/**
 * Builds an OP_REPLY carrying one document (a command reply), as servers answer OP_QUERY commands.
 *
 * @example
 * socket.write(encodeOpReply(nextRequestId(), message.requestId, encodeBson(helloReply)));
 */
export function encodeOpReply(requestId: number, responseTo: number, doc: Uint8Array): Buffer {
  const prefix = Buffer.allocUnsafe(HEADER_SIZE + 20);
  const length = prefix.length + doc.length;
  prefix.writeInt32LE(length, 0);
  prefix.writeInt32LE(requestId, 4);
  prefix.writeInt32LE(responseTo, 8);
  prefix.writeInt32LE(OpCode.OP_REPLY, 12);
  prefix.writeInt32LE(REPLY_AWAIT_CAPABLE, 16);
  prefix.writeBigInt64LE(0n, 20);
  prefix.writeInt32LE(0, 28);
  prefix.writeInt32LE(1, 32);
  return Buffer.concat([prefix, doc], length);
}
