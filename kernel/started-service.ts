import type { Provider } from "./container.js";

/**
 * The one way to bind a service that exists only after its plugin started (an open database, a
 * running auth runtime): bind the token in `register()` with this provider; resolving it before
 * `start()` (or after `stop()`) throws the capability's coded `<CAP>_NOT_STARTED` error instead of
 * handing out a half-made object. Resolve it in your own `start()` (dependencies start first) or
 * per request.
 *
 * @example
 * let open: Database | undefined;
 * return {
 *   name: "database",
 *   register(ctx) { ctx.container.bind(DATABASE, startedService(() => open, DatabaseErrors.NOT_STARTED)); },
 *   async start() { open = await connect(); },
 *   async stop() { await open?.close(); open = undefined; },
 * };
 */
export function startedService<T>(current: () => T | undefined, notStarted: () => Error): Provider<T> {
  return {
    // Transient: every resolve asks for the current instance, so a stop-then-start is seen too.
    transient: true,
    useFactory: () => {
      const service = current();
      if (service === undefined) throw notStarted();
      return service;
    },
  };
}
