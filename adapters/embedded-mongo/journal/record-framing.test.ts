import test from "ava";
import { serialize } from "bson";
import { encodeRecord, findValidRecordAfter, readRecord, RECORD_HEADER_BYTES } from "./record-framing.js";

const records = [encodeRecord([serialize({ a: 1 })]), encodeRecord([serialize({ b: "two" }), serialize({ c: [3] })]), encodeRecord([serialize({ d: 4 })])];
const file = Buffer.concat(records);

test("records read back in order with their payloads", (t) => {
  let offset = 0;
  const payloads: number[] = [];
  while (offset < file.length) {
    const read = readRecord(file, offset);
    if (read.status !== "ok") return t.fail(read.status);
    payloads.push(read.payload.length);
    offset = read.end;
  }
  t.deepEqual(payloads, records.map((record) => record.length - RECORD_HEADER_BYTES));
});

test("a record cut short is incomplete; a flipped bit or a damaged length is invalid", (t) => {
  t.is(readRecord(file.subarray(0, file.length - 1), records[0]!.length + records[1]!.length).status, "incomplete");
  t.is(readRecord(file.subarray(0, 5), 0).status, "incomplete");
  const flipped = Buffer.from(file);
  flipped[RECORD_HEADER_BYTES + 6]! ^= 0x10;
  t.is(readRecord(flipped, 0).status, "invalid");
  const badLength = Buffer.from(file);
  badLength.writeUInt32LE(badLength.readUInt32LE(0) - 1, 0);
  t.is(readRecord(badLength, 0).status, "invalid");
});

test("findValidRecordAfter finds the next good record after damage, and nothing in garbage", (t) => {
  const damaged = Buffer.from(file);
  damaged[RECORD_HEADER_BYTES + 6]! ^= 0x10;
  t.is(findValidRecordAfter(damaged, 0), records[0]!.length);
  const tail = Buffer.concat([Buffer.alloc(100), Buffer.from("not a record at all, just bytes that might look like lengths \x05\x00\x00\x00")]);
  t.is(findValidRecordAfter(tail, 0), undefined);
  // A large torn record: scanning inside it finds nothing (and stays cheap).
  const big = encodeRecord([serialize({ blob: Buffer.alloc(4 << 20, 7), list: Array.from({ length: 2000 }, (_, i) => i) })]);
  t.is(findValidRecordAfter(big.subarray(0, big.length - 10), 0), undefined);
});
