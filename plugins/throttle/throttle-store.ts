import { RateLimiterMemory } from "rate-limiter-flexible";
import { THROTTLE_STORE, type ThrottleStore } from "../../contracts/throttle-store.js";
import type { SvcContainer } from "../../kernel/container.js";

/** Counts in this process's memory: the store when nothing binds `THROTTLE_STORE`. */
export const memoryThrottleStore: ThrottleStore = (budget) => new RateLimiterMemory(budget);

/**
 * The app's throttle store: `THROTTLE_STORE` when bound, else memory.
 *
 * @example
 * const store = throttleStoreOf(ctx.container);
 */
export function throttleStoreOf(container: SvcContainer): ThrottleStore {
  return container.tryResolve(THROTTLE_STORE) ?? memoryThrottleStore;
}
