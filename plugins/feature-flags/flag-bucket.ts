import murmurhash from "murmurhash";

// The library encodes string keys with a new TextEncoder per call, which costs more than the hash
// itself; encoding into one reusable buffer keeps a bucket computation allocation-light.
const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/**
 * The user's bucket (0–99) for a flag: MurmurHash3 x86 32-bit, seed 0, over the UTF-8 bytes of
 * `"<flagKey>:<userId>"`, modulo 100 (ARCHITECTURE §4). Keying by flag as well as user means a
 * user in the first 10 % of one flag is not automatically in the first 10 % of every flag.
 *
 * @example
 * flagBucket("new-checkout", "64b7f0c2e4b0a1a2b3c4d5e6"); // same number in every process, forever
 */
export function flagBucket(flagKey: string, userId: string): number {
  const text = `${flagKey}:${userId}`;
  // UTF-8 needs at most 3 bytes per UTF-16 code unit.
  if (text.length * 3 > scratch.length) scratch = new Uint8Array(text.length * 3);
  const { written } = encoder.encodeInto(text, scratch);
  return murmurhash.v3(scratch.subarray(0, written), 0) % 100;
}
