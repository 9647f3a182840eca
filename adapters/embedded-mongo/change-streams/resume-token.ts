import { Timestamp } from "bson";
import type { Document } from "bson";
import { bsonTypeName } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";

/**
 * What a resume token stands for:
 * - `event`: a change event, produced by the oplog entry at `ts` (`txnOpIndex`: its position
 *   among events sharing that `ts`, always 0 while every entry has its own timestamp);
 * - `invalidate`: the invalidate event that follows the invalidating entry at `ts` (only
 *   `startAfter` accepts it);
 * - `highWaterMark`: a position, not an event — "every event before `ts` has been seen" (the
 *   `postBatchResumeToken` of a batch that scanned up to there).
 */
export interface ResumeTokenData {
  readonly kind: "highWaterMark" | "event" | "invalidate";
  readonly ts: Timestamp;
  readonly txnOpIndex: number;
}

/** First byte of every token we issue: lets a later format change tell its tokens apart. */
const FORMAT_VERSION = 0x01;
const KIND_CODES = { highWaterMark: 0, event: 1, invalidate: 2 } as const;
const KINDS = ["highWaterMark", "event", "invalidate"] as const;
const TOKEN_BYTES = 14;

/**
 * Encodes a token as MongoDB presents one: `{_data: <hex string>}`, opaque to clients. The bytes
 * are version, `ts` (seconds, increment, big-endian), `txnOpIndex`, kind — so the hex strings of
 * one stream sort in stream order, as MongoDB's do (a high-water mark sorts before the event at
 * the same `ts`, an invalidate after it).
 *
 * @example
 * encodeResumeToken({kind: "event", ts: new Timestamp({t: 1700000000, i: 3}), txnOpIndex: 0});
 * // {_data: "01655043000000000300000000" + "01"}
 */
export function encodeResumeToken(token: ResumeTokenData): { _data: string } {
  const bytes = Buffer.alloc(TOKEN_BYTES);
  bytes.writeUInt8(FORMAT_VERSION, 0);
  bytes.writeUInt32BE(token.ts.high >>> 0, 1);
  bytes.writeUInt32BE(token.ts.low >>> 0, 5);
  bytes.writeUInt32BE(token.txnOpIndex, 9);
  bytes.writeUInt8(KIND_CODES[token.kind], 13);
  return { _data: bytes.toString("hex").toUpperCase() };
}

/**
 * Decodes a client-supplied token (`resumeAfter`/`startAfter`). `option` names the option in
 * error messages. Not a document → TypeMismatch (14); no string `_data` → 40647 (MongoDB's
 * "Bad resume token"); a `_data` that is not one of our tokens → InvalidResumeToken (260).
 *
 * @example
 * decodeResumeToken(change._id, "resumeAfter"); // {kind: "event", ts, txnOpIndex: 0}
 */
export function decodeResumeToken(value: unknown, option: string): ResumeTokenData {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new EngineError(
      ErrorCodes.TypeMismatch,
      `BSON field '$changeStream.${option}' is the wrong type '${bsonTypeName(value)}', expected type 'object'`,
    );
  }
  const data = (value as Document)["_data"];
  if (typeof data !== "string") {
    throw new EngineError(40647, `Bad resume token: _data of missing or of wrong type. Expected string, got ${bsonTypeName(data)}`);
  }
  const bytes = /^[0-9a-fA-F]*$/.test(data) && data.length === TOKEN_BYTES * 2 ? Buffer.from(data, "hex") : undefined;
  const kind = bytes ? KINDS[bytes.readUInt8(13)] : undefined;
  if (!bytes || bytes.readUInt8(0) !== FORMAT_VERSION || kind === undefined) {
    throw new EngineError(ErrorCodes.InvalidResumeToken, `Bad resume token: '${data.slice(0, 64)}' is not a resume token issued by this server`);
  }
  return {
    kind,
    ts: new Timestamp({ t: bytes.readUInt32BE(1), i: bytes.readUInt32BE(5) }),
    txnOpIndex: bytes.readUInt32BE(9),
  };
}

/**
 * The timestamp just before `ts` (positions are "last `ts` consumed"; a stream starting at `ts`
 * inclusive is positioned at its predecessor).
 *
 * @example
 * previousTimestamp(new Timestamp({t: 10, i: 0})); // Timestamp({t: 9, i: 4294967295})
 */
export function previousTimestamp(ts: Timestamp): Timestamp {
  if (ts.low !== 0) return new Timestamp({ t: ts.high >>> 0, i: (ts.low >>> 0) - 1 });
  if (ts.high === 0) return ts;
  return new Timestamp({ t: (ts.high >>> 0) - 1, i: 0xffffffff });
}

/**
 * The timestamp just after `ts` (a high-water mark for "everything up to `ts` seen").
 *
 * @example
 * nextTimestamp(new Timestamp({t: 10, i: 4})); // Timestamp({t: 10, i: 5})
 */
export function nextTimestamp(ts: Timestamp): Timestamp {
  if ((ts.low >>> 0) !== 0xffffffff) return new Timestamp({ t: ts.high >>> 0, i: (ts.low >>> 0) + 1 });
  return new Timestamp({ t: (ts.high >>> 0) + 1, i: 0 });
}
