import type { Document } from "bson";
import { encodeBson } from "../wire/bson-codec.js";
import { CursorBatch } from "./cursor-batch.js";

/**
 * Serializes a command reply. When `reply.cursor` is a `CursorBatch`, the batch documents'
 * already-serialized bytes are copied in as array elements instead of being re-encoded.
 *
 * @example
 * const body = encodeReply({cursor: batch, ok: 1}); // BSON bytes for an OP_MSG body
 */
export function encodeReply(reply: Document): Buffer {
  const cursor = reply["cursor"];
  if (!(cursor instanceof CursorBatch)) return encodeBson(reply);
  const { cursor: _omit, ...rest } = reply;
  void _omit;
  const cursorElement = encodeDocumentElement("cursor", encodeCursorDocument(cursor));
  const restBytes = encodeBson(rest);
  const total = 4 + cursorElement.length + (restBytes.length - 5) + 1;
  const out = Buffer.allocUnsafe(total);
  out.writeInt32LE(total, 0);
  cursorElement.copy(out, 4);
  restBytes.copy(out, 4 + cursorElement.length, 4, restBytes.length - 1);
  out[total - 1] = 0;
  return out;
}

/** Converts a reply holding a `CursorBatch` to plain objects (the in-process API's result). */
export function plainReply(reply: Document): Document {
  const cursor = reply["cursor"];
  return cursor instanceof CursorBatch ? { ...reply, cursor: cursor.toDocument() } : reply;
}

function encodeCursorDocument(batch: CursorBatch): Buffer {
  const arrayElements: Buffer[] = [];
  let arraySize = 4 + 1;
  batch.bytes.forEach((bytes, i) => {
    const header = Buffer.from(`\x03${i}\x00`, "latin1");
    arrayElements.push(header, bytes);
    arraySize += header.length + bytes.length;
  });
  const arrayHeader = Buffer.allocUnsafe(4);
  arrayHeader.writeInt32LE(arraySize, 0);
  const batchElementName = Buffer.from(`\x04${batch.batchName}\x00`, "latin1");
  const tail = encodeBson({ id: batch.id, ns: batch.ns, ...(batch.extra ?? {}) });
  const size = 4 + batchElementName.length + arraySize + (tail.length - 5) + 1;
  const out = Buffer.allocUnsafe(size);
  let pos = out.writeInt32LE(size, 0);
  pos += batchElementName.copy(out, pos);
  pos += arrayHeader.copy(out, pos);
  for (const part of arrayElements) pos += part.copy(out, pos);
  out[pos++] = 0;
  pos += tail.copy(out, pos, 4, tail.length - 1);
  out[pos] = 0;
  return out;
}

function encodeDocumentElement(name: string, doc: Buffer): Buffer {
  const header = Buffer.from(`\x03${name}\x00`, "utf8");
  return Buffer.concat([header, doc], header.length + doc.length);
}
