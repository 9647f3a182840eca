/** One recorded engine event. `detail` never holds entity data unless `includeData` was asked for. */
export interface SyncDebugEvent {
  /** The client's `now()` when it happened. */
  readonly at: number;
  readonly type: string;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** Counters of what the engine did since the client was created (or `clear()`). */
export interface SyncDebugStats {
  deltasApplied: number;
  snapshotPages: number;
  reconciles: number;
  batchesSent: number;
  acks: number;
  nacks: number;
  retries: number;
}

/** `debug: true` or these options. */
export interface SyncDebugOptions {
  /** How many events to keep (oldest dropped first); default 500. */
  readonly maxEvents?: number;
  /** Include entity data and mutation payloads in events; default false. */
  readonly includeData?: boolean;
  /** Also called with each event as it is recorded (e.g. `console.debug`). */
  readonly log?: (event: SyncDebugEvent) => void;
}

/**
 * The engine's debug record (`db.debug`): recent events and counters. Events are only recorded
 * while `enabled`; stats always count.
 *
 * @example
 * const db = createSyncDb({ ...options, debug: { maxEvents: 100 } });
 * console.table(db.debug.events.map((event) => ({ at: event.at, type: event.type })));
 */
export interface SyncDebugLog {
  readonly enabled: boolean;
  readonly events: readonly SyncDebugEvent[];
  readonly stats: Readonly<SyncDebugStats>;
  /** Records an event (no-op when disabled). */
  log(type: string, detail?: Readonly<Record<string, unknown>>, data?: unknown): void;
  clear(): void;
  /**
   * Calls `listener` after events are recorded or stats change (once per burst: at the end of the
   * microtask it happened in); returns an unsubscribe function. For debug panels.
   *
   * @example
   * const stop = db.debug.subscribe(() => render(db.debug.events));
   */
  subscribe(listener: () => void): () => void;
}

/** A debug log for the `debug` option. */
export function createDebugLog(option: boolean | SyncDebugOptions | undefined, now: () => number): SyncDebugLog & { count(stat: keyof SyncDebugStats, by?: number): void } {
  const options: SyncDebugOptions | undefined = option === true ? {} : option === false || option === undefined ? undefined : option;
  const events: SyncDebugEvent[] = [];
  const zero = (): SyncDebugStats => ({ deltasApplied: 0, snapshotPages: 0, reconciles: 0, batchesSent: 0, acks: 0, nacks: 0, retries: 0 });
  let stats = zero();
  const listeners = new Set<() => void>();
  let announcing = false;
  // A burst of 10,000 deltas is one call, not 10,000: listeners hear at the end of the microtask.
  const changed = () => {
    if (announcing || listeners.size === 0) return;
    announcing = true;
    queueMicrotask(() => {
      announcing = false;
      for (const listener of [...listeners]) {
        try {
          listener();
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    });
  };
  return {
    enabled: options !== undefined,
    events,
    get stats() {
      return stats;
    },
    log(type, detail, data) {
      if (!options) return;
      const event: SyncDebugEvent = { at: now(), type, ...(detail || (options.includeData && data !== undefined) ? { detail: { ...detail, ...(options.includeData && data !== undefined ? { data } : {}) } } : {}) };
      events.push(event);
      if (events.length > (options.maxEvents ?? 500)) events.splice(0, events.length - (options.maxEvents ?? 500));
      options.log?.(event);
      changed();
    },
    clear() {
      events.length = 0;
      stats = zero();
      changed();
    },
    count(stat, by = 1) {
      stats[stat] += by;
      changed();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
