/**
 * Wraps `act` so it runs at most once per `ms`; calls in between are dropped. For warnings about
 * a condition that repeats on every request (a store or a server that is away): the first says
 * so, and the log is not flooded while it lasts.
 *
 * @example
 * const warn = atMostEvery(60_000, (message: string) => logger.warn(message));
 * warn("Redis is away"); // logged
 * warn("Redis is away"); // dropped, within the minute
 */
export function atMostEvery<A extends unknown[]>(ms: number, act: (...args: A) => void): (...args: A) => void {
  let last = -Infinity;
  return (...args) => {
    const now = Date.now();
    if (now - last < ms) return;
    last = now;
    act(...args);
  };
}
