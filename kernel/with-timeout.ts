/**
 * Races `work` against a timer; on expiry rejects with `onTimeout()`. The timer is cleared either
 * way so a finished phase never keeps the process alive.
 *
 * @example
 * await withTimeout(plugin.start(ctx), 30_000, () => KernelErrors.PHASE_TIMEOUT("start", plugin.name, 30_000));
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
