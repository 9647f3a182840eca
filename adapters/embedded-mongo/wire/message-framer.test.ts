import test from "ava";
import { FramingError, MessageFramer } from "./message-framer.js";

function frame(length: number, fill = 0): Buffer {
  const bytes = Buffer.alloc(length, fill);
  bytes.writeInt32LE(length, 0);
  bytes.writeInt32LE(2013, 12);
  return bytes;
}

test("messages split across chunks and several per chunk are reassembled", (t) => {
  const framer = new MessageFramer(1024);
  const stream = Buffer.concat([frame(20), frame(30), frame(17)]);
  const out = [];
  for (let i = 0; i < stream.length; i += 3) out.push(...framer.push(stream.subarray(i, i + 3)));
  t.deepEqual(out.map((message) => message.bytes.length), [20, 30, 17]);
  t.is(framer.pendingBytes, 0);
  t.deepEqual(framer.push(Buffer.concat([frame(16), frame(16)])).map((m) => m.opCode), [2013, 2013]);
});

test("a length outside [16, max] is rejected as soon as the header arrives", (t) => {
  t.throws(() => new MessageFramer(1024).push(frame(2048).subarray(0, 4)), { instanceOf: FramingError });
  t.throws(() => new MessageFramer(1024).push(Buffer.from([5, 0, 0, 0])), { instanceOf: FramingError });
  t.throws(() => new MessageFramer(1024).push(Buffer.from([0xff, 0xff, 0xff, 0xff])), { instanceOf: FramingError });
});
