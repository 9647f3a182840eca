import { useCallback, useMemo, useSyncExternalStore } from "react";
import type { SyncDb, SyncDebugEvent, SyncDebugStats } from "../client/index.js";
import { useSyncDbClient } from "./sync-db-context.js";

/** What `useSyncDebugLog` returns: a copy of the client's debug log as of the last render. */
export interface SyncDebugLogState {
  readonly enabled: boolean;
  readonly events: readonly SyncDebugEvent[];
  readonly stats: Readonly<SyncDebugStats>;
  /** Records an app event in the client's log (no-op unless the client was made with `debug`). */
  log(type: string, detail?: Readonly<Record<string, unknown>>): void;
  /** Empties the events and zeroes the stats. */
  clear(): void;
}

interface DebugView {
  readonly enabled: boolean;
  readonly events: readonly SyncDebugEvent[];
  readonly stats: Readonly<SyncDebugStats>;
}

interface DebugWatch {
  subscribe(listener: () => void): () => void;
  getSnapshot(): DebugView;
}

const watches = new WeakMap<SyncDb, DebugWatch>();

/** One watch per client, over the debug log's own announcements (events recorded, stats counted, clear). */
function debugWatch(client: SyncDb): DebugWatch {
  const existing = watches.get(client);
  if (existing) return existing;
  let signature = "";
  let view: DebugView | undefined;
  const watch: DebugWatch = {
    subscribe: (listener) => client.debug.subscribe(listener),
    getSnapshot() {
      const { debug } = client;
      const last = debug.events.at(-1);
      const next = `${debug.events.length}|${last?.at ?? ""}|${last?.type ?? ""}|${JSON.stringify(debug.stats)}`;
      if (!view || next !== signature || debug.events.at(-1) !== view.events.at(-1)) {
        signature = next;
        view = { enabled: debug.enabled, events: [...debug.events], stats: { ...debug.stats } };
      }
      return view;
    },
  };
  watches.set(client, watch);
  return watch;
}

/**
 * The client's debug log (`createSyncDb({debug: true})`): recent engine events and counters, for a
 * debug panel. Events are only recorded when the client has `debug` on; stats always count.
 *
 * @example
 * const { enabled, events, stats, clear } = useSyncDebugLog();
 * return <pre>{stats.acks} acks · {events.map((event) => event.type).join("\n")}</pre>;
 */
export function useSyncDebugLog(): SyncDebugLogState {
  const client = useSyncDbClient();
  const watch = debugWatch(client);
  const view = useSyncExternalStore(watch.subscribe, watch.getSnapshot, watch.getSnapshot);
  const log = useCallback((type: string, detail?: Readonly<Record<string, unknown>>) => client.debug.log(type, detail), [client]);
  const clear = useCallback(() => client.debug.clear(), [client]);
  return useMemo(() => ({ ...view, log, clear }), [view, log, clear]);
}
