// Browser code: no node: imports, nothing from the kernel. The page posts to its own origin.

/** Options of `reportClientState`. */
export interface ReportClientStateOptions {
  /** Names this tab in `get_rtk_state` (default: a random id kept for the page's life). */
  clientId?: string;
  /** Re-post every `intervalMs` ms (default 2000; 0 posts only when `report()` is called). */
  intervalMs?: number;
  /** The app's origin (default the page's). */
  baseUrl?: string;
}

/** A running reporter. */
export interface ClientStateReporter {
  readonly clientId: string;
  /** Posts the current state now. */
  report(): Promise<void>;
  stop(): void;
}

/**
 * Development only: posts the page's client data-layer state to the dev server's debug channel
 * (`POST /__svc/dev/client-state`, mounted by `devRuntime()`), where `svc-mcp-local`'s
 * `get_rtk_state` reads it. A state that is not JSON-serialisable is reported as its error text.
 * Do not ship it in production builds (the route does not exist there; posts fail quietly).
 *
 * @example
 * if (import.meta.env.DEV) reportClientState(() => ({ todos: db.todos.all() }));
 */
export function reportClientState(getState: () => unknown, options: ReportClientStateOptions = {}): ClientStateReporter {
  // The package compiles without the DOM library: the page's location, typed for what is used.
  const page = (globalThis as { location?: { origin: string; href: string } }).location;
  const clientId = options.clientId ?? `tab-${Math.random().toString(36).slice(2, 10)}`;
  const endpoint = new URL("/__svc/dev/client-state", options.baseUrl ?? page?.origin).href;
  const report = async (): Promise<void> => {
    let state: unknown;
    try {
      state = JSON.parse(JSON.stringify(getState() ?? null)) as unknown;
    } catch (error) {
      state = { unserialisable: String(error) };
    }
    try {
      await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ clientId, url: page?.href, state }),
      });
    } catch {
      // The dev server is restarting or gone: the next tick tries again.
    }
  };
  const interval = options.intervalMs ?? 2000;
  const timer = interval > 0 ? setInterval(() => void report(), interval) : undefined;
  void report();
  return { clientId, report, stop: () => clearInterval(timer) };
}
