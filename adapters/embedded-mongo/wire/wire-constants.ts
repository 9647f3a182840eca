/**
 * Numbers fixed by the MongoDB wire protocol specification (OP_MSG spec, legacy opcodes) and the
 * limits this engine advertises in `hello`. Kept in one place so the framer, the codecs and the
 * handshake reply can never disagree.
 */

/** `msgHeader` is four little-endian int32s: messageLength, requestID, responseTo, opCode. */
export const HEADER_SIZE = 16;

export const OpCode = {
  /** Legacy reply, only sent in answer to an OP_QUERY (the pre-handshake `isMaster`). */
  OP_REPLY: 1,
  OP_QUERY: 2004,
  OP_COMPRESSED: 2012,
  OP_MSG: 2013,
} as const;

/** OP_MSG flagBits. Bits 0-15 are "required": an unknown one set there must fail the message. */
export const MsgFlag = {
  checksumPresent: 1 << 0,
  moreToCome: 1 << 1,
  exhaustAllowed: 1 << 16,
} as const;

/** Required bits (0-15) this engine understands; any other required bit makes the message invalid. */
export const KNOWN_REQUIRED_MSG_FLAGS = MsgFlag.checksumPresent | MsgFlag.moreToCome;

/** OP_REPLY responseFlags: bit 3 says the server supports awaitData (real servers always set it). */
export const REPLY_AWAIT_CAPABLE = 1 << 3;

/** Largest message the server accepts or sends (`maxMessageSizeBytes` in `hello`). */
export const MAX_MESSAGE_SIZE_BYTES = 48_000_000;

/** Largest BSON document (`maxBsonObjectSize`). Replies may exceed it by a little overhead. */
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

/**
 * Command replies may be larger than a user document (MongoDB allows 16 MiB + 16 KiB for the
 * envelope around a 16 MiB batch).
 */
export const MAX_REPLY_BSON_SIZE = MAX_BSON_OBJECT_SIZE + 16 * 1024;

/** `maxWriteBatchSize` in `hello`: the driver splits larger insert/update/delete batches. */
export const MAX_WRITE_BATCH_SIZE = 100_000;

/** MongoDB 7.0. */
export const MAX_WIRE_VERSION = 21;
export const MIN_WIRE_VERSION = 0;
