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
}

/** A debug log for the `debug` option. */
export function createDebugLog(option: boolean | SyncDebugOptions | undefined, now: () => number): SyncDebugLog & { count(stat: keyof SyncDebugStats, by?: number): void } {
  const options: SyncDebugOptions | undefined = option === true ? {} : option === false || option === undefined ? undefined : option;
  const events: SyncDebugEvent[] = [];
  const zero = (): SyncDebugStats => ({ deltasApplied: 0, snapshotPages: 0, reconciles: 0, batchesSent: 0, acks: 0, nacks: 0, retries: 0 });
  let stats = zero();
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
    },
    clear() {
      events.length = 0;
      stats = zero();
    },
    count(stat, by = 1) {
      stats[stat] += by;
    },
  };
}
