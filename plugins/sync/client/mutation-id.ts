/**
 * A new random UUID (v4), for mutation ids and the ids clients mint for new entities offline.
 * With `random` (a seeded generator returning [0, 1)) the ids are reproducible, for tests;
 * otherwise they come from `crypto.randomUUID()`.
 *
 * @example
 * const mutationId = generateMutationId(); // "3b241101-e2bb-4255-8caf-4136c566a962"
 */
export function generateMutationId(random?: () => number): string {
  if (!random) return globalThis.crypto.randomUUID();
  const bytes = Array.from({ length: 16 }, () => Math.floor(random() * 256) & 0xff);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
