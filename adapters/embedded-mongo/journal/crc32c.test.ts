import test from "ava";
import { randomBytes } from "node:crypto";
import { crc32c } from "./crc32c.js";

test("crc32c matches the published check values", (t) => {
  // RFC 3720 (iSCSI) appendix B.4 and the CRC catalogue's check value.
  t.is(crc32c(Buffer.from("123456789")), 0xe3069283);
  t.is(crc32c(Buffer.alloc(32, 0)), 0x8a9136aa);
  t.is(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43);
  t.is(crc32c(Buffer.from(Array.from({ length: 32 }, (_, i) => i))), 0x46dd794e);
  t.is(crc32c(Buffer.from(Array.from({ length: 32 }, (_, i) => 31 - i))), 0x113fdb5c);
  t.is(crc32c(new Uint8Array(0)), 0);
});

test("crc32c can be computed in pieces", (t) => {
  const bytes = randomBytes(1000);
  const whole = crc32c(bytes);
  for (const cut of [0, 1, 7, 8, 9, 500, 999, 1000]) {
    t.is(crc32c(bytes.subarray(cut), crc32c(bytes.subarray(0, cut))), whole, `cut at ${cut}`);
  }
});

test("crc32c detects a single flipped bit anywhere", (t) => {
  const bytes = randomBytes(257);
  const original = crc32c(bytes);
  for (let bit = 0; bit < bytes.length * 8; bit += 13) {
    const copy = Buffer.from(bytes);
    copy[bit >> 3]! ^= 1 << (bit & 7);
    t.not(crc32c(copy), original);
  }
});
