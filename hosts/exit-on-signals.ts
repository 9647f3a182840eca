/**
 * How the executables (svc-db, svc-mcp, svc-mongod) end: on SIGINT or SIGTERM they stop what they
 * started and exit 0, or 1 when stopping failed.
 *
 * @example
 * const running = await runSvcDb(argv);
 * exitOnSignals(() => running.stop());
 */
export function exitOnSignals(stop: () => Promise<void>): () => void {
  const shutdown = (): void => {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return shutdown;
}
