/**
 * Turns per key within this process: `take(keys)` waits until the earlier holders of each key
 * are done, then holds them all until the returned release is called. Keys are taken in sorted
 * order, so two holders never wait for each other. A turn is advisory: a holder that never
 * releases delays the next ones by at most `maxWaitMs`, it never blocks them.
 *
 * @example
 * const turns = new Turns();
 * const release = await turns.take(["todos:42"]);
 * try {
 *   await saveTodo();
 * } finally {
 *   release();
 * }
 */
export class Turns {
  /** Per key, the end of its queue of holders. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs = 10_000) {}

  async take(keys: readonly string[]): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const key of [...new Set(keys)].sort()) {
      const previous = this.queues.get(key) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      const tail = previous.then(() => mine);
      this.queues.set(key, tail);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([previous, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.maxWaitMs)))]);
      clearTimeout(timer);
      releases.push(() => {
        release();
        if (this.queues.get(key) === tail) this.queues.delete(key);
      });
    }
    return () => releases.forEach((release) => release());
  }
}
