import type { PersistedChange } from "./persister.js";
import type { EngineState } from "./sync-status.js";

/**
 * The part of the Web Locks API (`navigator.locks`) the client uses: an exclusive lock held for
 * as long as `callback`'s promise is pending, requests granted in order, `signal` to give up
 * waiting. `createTabLocks()` of `svc/sync/testing` is one for a single process (Node tests).
 */
export interface SyncLockManager {
  request(name: string, options: { readonly signal?: AbortSignal }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

/** The part of `BroadcastChannel` the client uses. */
export interface SyncBroadcastChannel {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: { readonly data: unknown }) => void): void;
  close(): void;
}

/**
 * How tabs (or any instances) of one app share one local database: `locks` elects the one tab
 * that runs the engine (socket, paging, outbox draining); `channel` carries every tab's written
 * changes to the others, and the leader's connection state. Default: `navigator.locks` and
 * `BroadcastChannel` where they exist, used only with a durable persister (the tabs share it).
 *
 * @example
 * createSyncDb({ ...options, tabs: { locks: navigator.locks } });
 */
export interface SyncTabsOptions {
  /** Default `navigator.locks`; without one, every tab runs its own engine (the server's mutation ids keep double sends harmless). */
  readonly locks?: SyncLockManager;
  /** Default `new BroadcastChannel(name)`. */
  readonly channel?: (name: string) => SyncBroadcastChannel;
}

/** What a follower tab can ask the leader to do. */
export type LeaderCall = "replayOutbox" | "reconcile" | "forceResync" | "goOffline" | "goOnline";

type Message =
  | { readonly type: "changes"; readonly from: string; readonly changes: readonly PersistedChange[] }
  | { readonly type: "wiped"; readonly from: string }
  | { readonly type: "engine"; readonly from: string; readonly state: EngineState }
  | { readonly type: "hello"; readonly from: string }
  | { readonly type: "call"; readonly from: string; readonly id: string; readonly method: LeaderCall }
  | { readonly type: "result"; readonly from: string; readonly to: string; readonly id: string; readonly value: unknown };

/** What the client does when the coordinator hears something. */
export interface TabHandlers {
  /** Another tab wrote these records: apply them in memory (they are stored already). */
  onChanges(changes: readonly PersistedChange[]): void;
  onWiped(): void;
  /** The leader's engine state (connection, draining), for a follower's status. */
  onEngine(state: EngineState): void;
  /** This tab now leads: start the engine. */
  onLeader(): Promise<void>;
  /** A follower asks the leader to do something; the answer goes back to it. */
  onCall(method: LeaderCall): Promise<unknown>;
  /** The leader's current engine state, to answer a new tab's hello. */
  engineState(): EngineState;
}

/** How long a follower waits for the leader to answer a call before giving up. */
const CALL_TIMEOUT_MS = 30_000;

/**
 * One tab's side of the multi-tab protocol. Leadership is a Web Lock named after the database: it
 * is held until the tab stops (or closes: the browser releases it), then the next waiting tab gets it.
 */
export class TabCoordinator {
  leader = false;
  private readonly id = globalThis.crypto.randomUUID();
  private channel: SyncBroadcastChannel | undefined;
  private abort: AbortController | undefined;
  private release: (() => void) | undefined;
  private readonly pending = new Map<string, { resolve: (value: unknown) => void; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly name: string,
    private readonly options: SyncTabsOptions,
    private readonly handlers: TabHandlers,
  ) {}

  /** Whether tabs can be coordinated here: a channel is needed (locks are optional). */
  static available(options: SyncTabsOptions): boolean {
    return options.channel !== undefined || typeof globalThis.BroadcastChannel === "function";
  }

  start(): void {
    const channel = this.options.channel?.(this.name) ?? (new globalThis.BroadcastChannel(this.name) as unknown as SyncBroadcastChannel);
    // Node keeps a process alive for an open channel; browsers have no unref.
    (channel as { unref?: () => void }).unref?.();
    channel.addEventListener("message", (event) => this.receive(event.data as Message));
    this.channel = channel;
    const locks = this.options.locks ?? (globalThis as { navigator?: { locks?: SyncLockManager } }).navigator?.locks;
    if (!locks) {
      this.lead();
      return;
    }
    this.post({ type: "hello", from: this.id });
    const abort = new AbortController();
    this.abort = abort;
    void locks
      .request(this.name, { signal: abort.signal }, () => {
        if (abort.signal.aborted) return Promise.resolve();
        this.lead();
        return new Promise<void>((resolve) => (this.release = resolve));
      })
      .catch(() => undefined);
  }

  stop(): void {
    this.abort?.abort();
    this.abort = undefined;
    this.release?.();
    this.release = undefined;
    this.leader = false;
    this.channel?.close();
    this.channel = undefined;
    for (const call of this.pending.values()) {
      clearTimeout(call.timer);
      call.resolve(undefined);
    }
    this.pending.clear();
  }

  broadcastChanges(changes: readonly PersistedChange[]): void {
    if (changes.length > 0) this.post({ type: "changes", from: this.id, changes });
  }

  broadcastWiped(): void {
    this.post({ type: "wiped", from: this.id });
  }

  broadcastEngine(state: EngineState): void {
    if (this.leader) this.post({ type: "engine", from: this.id, state });
  }

  /** Asks the leader; resolves with its answer (`undefined` when no leader answered in time). */
  call(method: LeaderCall): Promise<unknown> {
    const id = globalThis.crypto.randomUUID();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(undefined);
      }, CALL_TIMEOUT_MS);
      // Not unref'd: in Node an unref'd channel alone does not keep the answer coming.
      this.pending.set(id, { resolve, timer });
      this.post({ type: "call", from: this.id, id, method });
    });
  }

  private lead(): void {
    this.leader = true;
    void this.handlers.onLeader().then(() => this.broadcastEngine(this.handlers.engineState()));
  }

  private post(message: Message): void {
    try {
      this.channel?.postMessage(message);
    } catch {
      // A closed channel (the tab is stopping): nothing to tell.
    }
  }

  private receive(message: Message): void {
    if (!message || message.from === this.id) return;
    switch (message.type) {
      case "changes":
        this.handlers.onChanges(message.changes);
        break;
      case "wiped":
        this.handlers.onWiped();
        break;
      case "engine":
        if (!this.leader) this.handlers.onEngine(message.state);
        break;
      case "hello":
        this.broadcastEngine(this.handlers.engineState());
        break;
      case "call":
        if (!this.leader) return;
        void this.handlers
          .onCall(message.method)
          .catch(() => undefined)
          .then((value) => this.post({ type: "result", from: this.id, to: message.from, id: message.id, value }));
        break;
      case "result": {
        if (message.to !== this.id) return;
        const call = this.pending.get(message.id);
        if (!call) return;
        clearTimeout(call.timer);
        this.pending.delete(message.id);
        call.resolve(message.value);
        break;
      }
    }
  }
}
