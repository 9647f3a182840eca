import type { EngineContext } from "./engine-context.js";
import { unref } from "./engine-context.js";
import { entityKey } from "./records.js";
import { applyServerState, purgeTombstones } from "./server-state.js";
import { SyncRequestError } from "./transport.js";
import type { SnapshotPage, SyncDelta } from "./wire-types.js";

/** What `forceResync()` did: streams paged from 0, local entities the server no longer has (purged) or had differently (repaired). */
export interface ForceResyncResult {
  readonly ok: boolean;
  /** Why it did not finish: `offline`, `not-started`, `no-leader`, or a failed request's `auth`, `network`, `server`, `refused` (4xx), `error`. */
  readonly reason?: string;
  readonly streams: number;
  readonly purged: number;
  readonly repaired: number;
}

/**
 * A page that says there is more must move the cursor past the one asked for: asking again from
 * the same cursor would get the same page, and paging would request it forever.
 */
function advanced(page: SnapshotPage, asked: number): SnapshotPage {
  if (page.hasMore && !(page.cursor > asked)) throw new SyncRequestError("server", `snapshot of ${page.stream} from ${asked} answered hasMore with cursor ${String(page.cursor)}`);
  return page;
}

/** An entity state the client can apply: it names its entity and seq, and its data (if any) is an object. */
function wellFormedState(state: unknown): state is { readonly id: string; readonly seq: number } {
  if (typeof state !== "object" || state === null) return false;
  const { id, seq, data } = state as Record<string, unknown>;
  return typeof id === "string" && id !== "" && Number.isSafeInteger(seq) && (seq as number) >= 0 && (data === undefined || (typeof data === "object" && data !== null && !Array.isArray(data)));
}

/** A delta the client can apply: a well-formed state that also names its collection and stream. */
function wellFormed(delta: unknown): delta is SyncDelta {
  if (!wellFormedState(delta)) return false;
  const { collection, stream } = delta as unknown as Record<string, unknown>;
  return typeof collection === "string" && typeof stream === "string";
}

/**
 * The read side of the engine: pages each stream's snapshot from its cursor, applies deltas, moves
 * cursors only over seqs applied in order (docs/sync.md), and reconciles on a seq jump (at most
 * once per `seqJumpReconcileMinIntervalMs` per stream), on `sync:reconcile` and on a timer.
 */
export class StreamPager {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** Seqs received above a stream's cursor, applied but not yet contiguous with it. */
  private readonly ahead = new Map<string, Set<number>>();
  private readonly lastJump = new Map<string, number>();
  private readonly jumpTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /**
   * Moved on by `stop()` (and a wipe): an answer to a request made before belongs to a session that
   * is over — applied, it would bring a signed-out user's entities back, or set a wiped stream's
   * cursor past entities it no longer has.
   */
  private epoch = 0;
  /**
   * Per `forceResync` in progress, the entities deltas changed meanwhile (its pages may predate
   * them: never purge those). One set per call: calls can overlap (twice in a row, or across a
   * stop and start), and the first to end must not drop the other's record.
   */
  private readonly resyncs = new Set<Set<string>>();

  constructor(private readonly context: EngineContext) {}

  /** Paging in progress. */
  get busy(): boolean {
    return this.running.size > 0;
  }

  stop(): void {
    this.epoch++;
    for (const timer of this.jumpTimers.values()) clearTimeout(timer);
    this.jumpTimers.clear();
    this.ahead.clear();
  }

  /** `sync:subscribed`: page every confirmed stream; forget the streams of the collection the user left. */
  onSubscribed(collection: string, streams: readonly string[]): void {
    const { database } = this.context;
    if (!this.context.collections.includes(collection)) return;
    database.change(() => {
      for (const stream of streams) if (!database.cursor(stream)) database.putCursor({ stream, collection, cursor: 0 });
      for (const cursor of database.cursorList()) if (cursor.collection === collection && !streams.includes(cursor.stream)) this.forgetStream(cursor.stream);
    });
    for (const stream of streams) void this.page(collection, stream).catch(() => undefined);
  }

  /**
   * Deltas that arrived together (one socket read), applied as one step: listeners hear once, the
   * persister gets one write, and each stream's cursor moves once — over the seqs now contiguous
   * with it (the rest wait above it; a gap left at the end of the burst pages the stream).
   */
  onDeltas(deltas: readonly SyncDelta[]): void {
    const { database, debug } = this.context;
    const streams = new Map<string, { collection: string; from: number | undefined; cursor: number | undefined; highest: number }>();
    const now = this.context.now();
    let applied = 0;
    database.change(() => {
      for (const delta of deltas) {
        if (!wellFormed(delta)) {
          // One bad delta must not throw away the burst it came in (nor throw in the socket's handler).
          // Only types: whatever a bad delta carries (its seq included) may be entity data.
          debug.log("delta-malformed", { seq: typeof delta === "object" && delta !== null ? typeof (delta as { seq?: unknown }).seq : typeof delta });
          continue;
        }
        if (!this.context.collections.includes(delta.collection)) continue;
        applied++;
        applyServerState(database, { collection: delta.collection, id: delta.id, stream: delta.stream, seq: delta.seq, deleted: delta.deleted ?? delta.method === "delete", data: delta.data }, now);
        for (const touched of this.resyncs) touched.add(entityKey(delta.collection, delta.id));
        let stream = streams.get(delta.stream);
        if (!stream) {
          const from = database.cursor(delta.stream)?.cursor;
          streams.set(delta.stream, (stream = { collection: delta.collection, from, cursor: from, highest: 0 }));
        }
        stream.highest = Math.max(stream.highest, delta.seq);
        if (stream.cursor !== undefined && delta.seq === stream.cursor + 1) stream.cursor = delta.seq;
        else if (stream.cursor === undefined || delta.seq > stream.cursor + 1) this.aheadOf(delta.stream).add(delta.seq);
        if (debug.enabled) debug.log("delta", { collection: delta.collection, id: delta.id, seq: delta.seq, stream: delta.stream }, delta.data);
      }
      for (const [name, stream] of streams) {
        if (stream.cursor !== undefined && stream.cursor !== stream.from) this.moveCursor(stream.collection, name, stream.cursor);
      }
    });
    debug.count("deltasApplied", applied);
    for (const [name, stream] of streams) {
      const cursor = database.cursor(name);
      if (cursor && stream.highest > cursor.cursor) this.seqJump(stream.collection, name);
    }
  }

  /** Pages one stream from its cursor until the server has no more; a second call while one runs runs it once more after. */
  page(collection: string, stream: string): Promise<void> {
    const current = this.running.get(stream);
    if (current) {
      this.again.add(stream);
      return current;
    }
    const run = (async () => {
      try {
        do {
          this.again.delete(stream);
          await this.pageFrom(collection, stream);
        } while (this.again.has(stream) && this.context.active());
      } finally {
        this.running.delete(stream);
        this.context.changed();
      }
    })();
    this.running.set(stream, run);
    this.context.changed();
    return run;
  }

  /** Pages every stream the user is in (`GET /sync/streams`) from its cursor; forgets streams left; purges old tombstones. */
  async reconcile(): Promise<void> {
    const { database, debug } = this.context;
    debug.count("reconciles");
    debug.log("reconcile");
    purgeTombstones(database, this.context.settings.tombstoneRetentionMs, this.context.now());
    const epoch = this.epoch;
    const memberships = (await this.guard(async () => this.context.http.streams(await this.context.token()))).filter((membership) => this.context.collections.includes(membership.collection));
    if (epoch !== this.epoch) return;
    const streams = new Set(memberships.map((membership) => membership.stream));
    database.change(() => {
      for (const { collection, stream } of memberships) if (!database.cursor(stream)) database.putCursor({ stream, collection, cursor: 0 });
      for (const cursor of database.cursorList()) if (!streams.has(cursor.stream)) this.forgetStream(cursor.stream);
    });
    await Promise.all(memberships.map(({ collection, stream }) => this.page(collection, stream)));
  }

  /** Pages every stream from 0 and makes the local server states equal to what came back. */
  async forceResync(): Promise<ForceResyncResult> {
    const { database } = this.context;
    const seen = new Set<string>();
    let repaired = 0;
    let streamCount = 0;
    const touched = new Set<string>();
    this.resyncs.add(touched);
    const epoch = this.epoch;
    const stopped = { ok: false, reason: "not-started", streams: 0, purged: 0, repaired: 0 };
    try {
      const memberships = (await this.guard(async () => this.context.http.streams(await this.context.token()))).filter((membership) => this.context.collections.includes(membership.collection));
      if (epoch !== this.epoch) return stopped;
      for (const { collection, stream } of memberships) {
        let cursor = 0;
        let more = true;
        while (more) {
          const page = await this.guard(async () => advanced(await this.context.http.snapshot({ collection, stream, cursor, limit: this.context.settings.snapshotPageSize }, await this.context.token()), cursor));
          if (epoch !== this.epoch) return stopped;
          database.change(() => {
            for (const entity of page.entities) {
              if (!wellFormedState(entity)) continue;
              seen.add(entityKey(collection, entity.id));
              if (applyServerState(database, { collection, id: entity.id, stream, seq: entity.seq, deleted: entity.deleted, data: entity.data }, this.context.now(), true)) repaired++;
            }
            if (!page.hasMore) database.putCursor({ stream, collection, cursor: Math.max(page.cursor, database.cursor(stream)?.cursor ?? 0) });
          });
          cursor = page.cursor;
          more = page.hasMore;
        }
        streamCount++;
      }
      const streams = new Set(memberships.map((membership) => membership.stream));
      let purged = 0;
      database.change(() => {
        for (const cursor of database.cursorList()) if (!streams.has(cursor.stream)) database.removeCursor(cursor.stream);
        for (const record of [...database.serverStates()]) {
          const key = entityKey(record.collection, record.id);
          if (!this.context.collections.includes(record.collection) || seen.has(key) || touched.has(key)) continue;
          if (database.pendingRows(record.collection, record.id).length > 0) continue;
          database.removeServerState(record.collection, record.id);
          purged++;
        }
      });
      return { ok: true, streams: streamCount, purged, repaired };
    } catch (error) {
      return { ok: false, reason: error instanceof SyncRequestError ? error.kind : "error", streams: streamCount, purged: 0, repaired };
    } finally {
      this.resyncs.delete(touched);
    }
  }

  private async pageFrom(collection: string, stream: string): Promise<void> {
    const { database, debug } = this.context;
    let more = true;
    const epoch = this.epoch;
    while (more && this.context.active()) {
      const cursor = database.cursor(stream)?.cursor ?? 0;
      const page = await this.guard(async () => advanced(await this.context.http.snapshot({ collection, stream, cursor, limit: this.context.settings.snapshotPageSize }, await this.context.token()), cursor));
      if (epoch !== this.epoch) return;
      debug.count("snapshotPages");
      debug.log("snapshot-page", { stream, cursor, entities: page.entities.length, hasMore: page.hasMore });
      database.change(() => {
        for (const entity of page.entities) {
          // A malformed entity is skipped, not thrown on: the page would fail again at every retry.
          if (!wellFormedState(entity)) continue;
          applyServerState(database, { collection, id: entity.id, stream, seq: entity.seq, deleted: entity.deleted, data: entity.data }, this.context.now());
        }
        this.moveCursor(collection, stream, page.cursor);
      });
      more = page.hasMore;
    }
  }

  /** Moves a stream's cursor forward (never back), then over the seqs already received beyond it. */
  private moveCursor(collection: string, stream: string, to: number): void {
    const { database } = this.context;
    let cursor = Math.max(to, database.cursor(stream)?.cursor ?? 0);
    const ahead = this.ahead.get(stream);
    if (ahead) {
      while (ahead.has(cursor + 1)) cursor++;
      for (const seq of ahead) if (seq <= cursor) ahead.delete(seq);
    }
    if (cursor !== database.cursor(stream)?.cursor) database.putCursor({ stream, collection, cursor });
  }

  private aheadOf(stream: string): Set<number> {
    let set = this.ahead.get(stream);
    if (!set) this.ahead.set(stream, (set = new Set()));
    return set;
  }

  /** A delta beyond the cursor: deltas were missed. Page the stream, at most once per interval. */
  private seqJump(collection: string, stream: string): void {
    if (this.running.has(stream) || this.jumpTimers.has(stream)) return;
    const now = this.context.now();
    const last = this.lastJump.get(stream);
    const interval = this.context.settings.seqJumpReconcileMinIntervalMs;
    const fire = () => {
      this.jumpTimers.delete(stream);
      this.lastJump.set(stream, this.context.now());
      this.context.debug.log("seq-jump-reconcile", { stream });
      void this.page(collection, stream).catch(() => undefined);
    };
    if (last === undefined || now - last >= interval) fire();
    else this.jumpTimers.set(stream, unref(setTimeout(fire, interval - (now - last))));
  }

  /** The user is no longer in this stream: its entities are no longer theirs to see (pending ones stay). */
  private forgetStream(stream: string): void {
    const { database } = this.context;
    database.removeCursor(stream);
    this.ahead.delete(stream);
    for (const record of [...database.serverStates()]) {
      if (record.stream === stream && database.pendingRows(record.collection, record.id).length === 0) database.removeServerState(record.collection, record.id);
    }
  }

  /** Runs a request; a 401 pauses replay for auth before the error goes on. */
  private async guard<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof SyncRequestError && error.kind === "auth") this.context.pauseAuth("unauthorized");
      this.context.debug.log("request-failed", { kind: error instanceof SyncRequestError ? error.kind : "error", message: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }
}
