import { setTimeout as sleep } from "node:timers/promises";

/**
 * A promise that resolves after `ms` milliseconds — for pauses in scripts (rate limits, polling).
 *
 * @example
 * for (const user of users) {
 *   await sendDigest(user);
 *   await timeout(200);
 * }
 */
export function timeout(ms: number): Promise<void> {
  return sleep(Math.max(0, ms)).then(() => undefined);
}
