/**
 * Stops a listening app on SIGINT/SIGTERM; resolves to the exit code it asks for (0 clean, 1 not).
 */
export type SignalStop = (signal: NodeJS.Signals) => Promise<number>;

// Signals are process-wide, so this is too: one listener pair however many apps listen (a
// listener per app passed the default limit of 10 in a test file of concurrent apps), and the
// process exits once every app has stopped — not when the quickest one has, cutting off the
// requests the others were still draining.
const stops = new Set<SignalStop>();
let shuttingDown = false;

const onSignal = (signal: NodeJS.Signals): void => {
  if (shuttingDown) return;
  shuttingDown = true;
  // A second Ctrl-C while stopping ends the process at once, as without handlers.
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  const all = [...stops];
  stops.clear();
  void Promise.all(all.map((stop) => stop(signal).catch(() => 1))).then((codes) => process.exit(Math.max(0, ...codes)));
};

/**
 * Registers `stop` for SIGINT and SIGTERM; returns the function that unregisters it (which an
 * app's own stop() calls, so a stopped app never runs it).
 *
 * @example
 * const unregister = stopOnShutdownSignal(async () => { await app.stop(); return 0; });
 */
export function stopOnShutdownSignal(stop: SignalStop): () => void {
  stops.add(stop);
  if (stops.size === 1 && !shuttingDown) {
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
  return () => {
    if (!stops.delete(stop) || stops.size > 0 || shuttingDown) return;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}
