import type { MutationOutcome } from "./nack.js";
import { MAX_BATCH } from "./sync-route-schemas.js";

/** A batch entry that was not tried because an earlier one was not acked. */
export interface NotAttempted {
  readonly notAttempted: { readonly mutationId: string };
}

/**
 * Decides, before an entry is tried, whether it may be: `undefined` lets it through, an outcome
 * (a `rate_limited` nack) answers it instead, and like any nack stops the batch.
 */
export type BatchGate = (entry: unknown) => MutationOutcome | undefined | Promise<MutationOutcome | undefined>;

/**
 * Applies a batch in strict order and stops at the first entry that is not acked: every later
 * entry is reported `{notAttempted: {mutationId}}`, so `results` lines up with the request. HTTP
 * and the socket's `sync:mutateBatch` both use it (the socket with its rate limit as `gate`).
 *
 * @example
 * const results = await applyInOrder([m1, m2, m3], (entry) => mutations.apply(user, entry, req)); // [{ack}, {nack}, {notAttempted}]
 */
export async function applyInOrder(
  entries: readonly unknown[],
  apply: (entry: unknown) => Promise<MutationOutcome>,
  gate?: BatchGate,
): Promise<(MutationOutcome | NotAttempted)[]> {
  const results: (MutationOutcome | NotAttempted)[] = [];
  let stopped = false;
  for (const entry of entries.slice(0, MAX_BATCH)) {
    if (stopped) {
      results.push({ notAttempted: { mutationId: mutationIdOf(entry) } });
      continue;
    }
    const outcome = (await gate?.(entry)) ?? (await apply(entry));
    results.push(outcome);
    if (!("ack" in outcome)) stopped = true;
  }
  return results;
}

/** The `mutationId` of an entry as far as it has one (bounded; "" when it has none). */
export function mutationIdOf(entry: unknown): string {
  const id = entry !== null && typeof entry === "object" ? (entry as { mutationId?: unknown }).mutationId : undefined;
  return typeof id === "string" ? id.slice(0, 128) : "";
}
