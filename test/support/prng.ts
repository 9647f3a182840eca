/**
 * mulberry32: a small seeded PRNG for randomized tests, so a failing run can be replayed from
 * its seed.
 *
 * @example
 * const random = prng(Number(process.env.MY_TEST_SEED ?? 1)); random(); // 0.6270739405881613
 */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
