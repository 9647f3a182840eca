import murmurhash from "murmurhash";

// The library encodes string keys with a new TextEncoder per call, which costs as much as the
// hash itself. A flag's `"<flagKey>:"` prefix never changes, and a configuration request hashes
// one user id against every flag in a row, so both byte forms are computed once and copied into a
// reusable buffer.
const encoder = new TextEncoder();
let scratch = new Uint8Array(256);
let lastUserId: string | undefined;
let lastUserBytes = new Uint8Array(0);

function userIdBytes(userId: string): Uint8Array {
  if (userId !== lastUserId) {
    lastUserBytes = encoder.encode(userId);
    lastUserId = userId;
  }
  return lastUserBytes;
}

/**
 * `flagBucket` for one flag, with the flag's part of the hashed bytes prepared once.
 *
 * @example
 * const bucketOf = flagBucketer("new-checkout");
 * bucketOf(user.id); // same as flagBucket("new-checkout", user.id)
 */
export function flagBucketer(flagKey: string): (userId: string) => number {
  const prefix = encoder.encode(`${flagKey}:`);
  return (userId) => {
    const user = userIdBytes(userId);
    const length = prefix.length + user.length;
    if (length > scratch.length) scratch = new Uint8Array(length * 2);
    scratch.set(prefix, 0);
    scratch.set(user, prefix.length);
    return murmurhash.v3(scratch.subarray(0, length), 0) % 100;
  };
}

/**
 * The user's bucket (0–99) for a flag: MurmurHash3 x86 32-bit, seed 0, over the UTF-8 bytes of
 * `"<flagKey>:<userId>"`, modulo 100 (ARCHITECTURE §4). Keying by flag as well as user means a
 * user in the first 10 % of one flag is not automatically in the first 10 % of every flag.
 *
 * @example
 * flagBucket("new-checkout", "64b7f0c2e4b0a1a2b3c4d5e6"); // same number in every process, forever
 */
export function flagBucket(flagKey: string, userId: string): number {
  return flagBucketer(flagKey)(userId);
}
