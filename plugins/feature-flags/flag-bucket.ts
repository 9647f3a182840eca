import murmurhash from "murmurhash";

/**
 * The user's bucket (0–99) for a flag: MurmurHash3 x86 32-bit, seed 0, over the UTF-8 bytes of
 * `"<flagKey>:<userId>"`, modulo 100 (ARCHITECTURE §4). Keying by flag as well as user means a
 * user in the first 10 % of one flag is not automatically in the first 10 % of every flag.
 *
 * @example
 * flagBucket("new-checkout", "64b7f0c2e4b0a1a2b3c4d5e6"); // same number in every process, forever
 */
export function flagBucket(flagKey: string, userId: string): number {
  return murmurhash.v3(`${flagKey}:${userId}`, 0) % 100;
}
