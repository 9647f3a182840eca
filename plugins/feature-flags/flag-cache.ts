import type { ChangeStream, ChangeStreamDocument, ResumeToken, Timestamp } from "mongodb";
import { changeStreamStart, operationTimeNow } from "../../adapters/database/operation-time.js";
import { token } from "../../kernel/container.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { FlagSource } from "./db-feature-flag-provider.js";
import { compileFlag, type CompiledFlag, type SegmentProblem } from "./evaluate-flag.js";
import type { FeatureFlagDocument, FeatureFlagModel } from "./feature-flag-model.js";
import type { Segment } from "./flag-types.js";

/** Server error codes meaning "this deployment has no change streams" (standalone, no oplog). */
const CHANGE_STREAMS_UNSUPPORTED = new Set([40573, 40415, 115, 303]);

export interface FlagCacheOptions {
  model: FeatureFlagModel;
  segments?: Readonly<Record<string, Segment>>;
  logger: SvcLogger;
  /** Polling period when change streams are unavailable (default 5 s). */
  pollIntervalMs?: number;
  /** Poll even where change streams exist (e.g. when the database user may not watch). */
  forcePolling?: boolean;
  /** First delay before reopening a failed change stream; doubles up to 30 s (default 250 ms). */
  retryDelayMs?: number;
  /** Told which flag keys changed (after the cache already reflects the change). */
  onChange?: (keys: string[]) => void;
  onSegmentProblem?: SegmentProblem;
}

type FlagRecord = FeatureFlagDocument & { _id: unknown };

/**
 * Every live flag, compiled, in memory — so evaluation never queries the database. Kept fresh by
 * the collection's change stream: opened before the initial load (so nothing between the load and
 * the stream is missed), reopened from its resume token after any error, never left dead. Where
 * change streams do not exist (a standalone MongoDB), it polls instead.
 *
 * @example
 * const cache = new FlagCache({ model: featureFlagModel(), logger, onChange: (keys) => notify(keys) });
 * await cache.start();
 * cache.get("new-checkout")?.evaluate(user, user.id);
 */
export class FlagCache implements FlagSource {
  private readonly options: FlagCacheOptions;
  private byKey = new Map<string, CompiledFlag>();
  private keyById = new Map<string, string>();
  /** Serialized definitions, to tell real changes from no-op reloads. */
  private signatures = new Map<string, string>();
  private stream?: ChangeStream<FlagRecord>;
  private resumeToken?: ResumeToken;
  /** Where the first stream starts until it has a resume token of its own. */
  private startAt?: Timestamp;
  private pollTimer?: NodeJS.Timeout;
  /** The poll's read in flight, if any. */
  private poll?: Promise<void>;
  /** Reloads started, and the newest one whose result is in the cache (see `reload`). */
  private readsStarted = 0;
  private readApplied = 0;
  private running = false;
  private loop?: Promise<void>;
  /** Ends the backoff wait between reopen attempts (set while one is pending). */
  private wake?: () => void;
  /** `stream` or `poll`: how the cache is being kept fresh right now. */
  mode: "stream" | "poll" | "stopped" = "stopped";

  constructor(options: FlagCacheOptions) {
    this.options = options;
  }

  /** Loads every flag and starts following changes. Resolves once the cache is complete. */
  async start(): Promise<void> {
    this.running = true;
    if (this.options.forcePolling) {
      await this.reload();
      return this.startPolling();
    }
    // From the deployment's operation time, the stream opens in the background and still reports
    // every change after the load below; without one (no cluster time), wait for its cursor first.
    const db = this.options.model.db.db;
    this.startAt = db ? await operationTimeNow(db).catch(() => undefined) : undefined;
    const first = this.startAt === undefined ? await this.openStream() : undefined;
    await this.reload();
    if (first === "unsupported") return this.startPolling();
    if (first) this.apply(first);
    this.mode = "stream";
    this.loop = this.follow();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.mode = "stopped";
    clearInterval(this.pollTimer);
    // A backoff can last 30 s: stop must neither wait for it nor leave its timer behind.
    this.wake?.();
    await this.stream?.close().catch(() => undefined);
    await this.loop;
  }

  /** All cached flags (active or not). */
  flags(): Iterable<CompiledFlag> {
    return this.byKey.values();
  }

  get(key: string): CompiledFlag | undefined {
    return this.byKey.get(key);
  }

  async findFlag(key: string): Promise<CompiledFlag | null> {
    return this.byKey.get(key) ?? null;
  }

  /** Replaces the whole cache from the database; returns the keys whose definition changed. */
  async reload(): Promise<string[]> {
    const read = ++this.readsStarted;
    const records = (await this.options.model.find({ deleted: false }).lean()) as FlagRecord[];
    // Reads can overlap (a slow poll, a reload called by hand); one that started before the read
    // already in the cache may have seen an older state, and must not bring it back.
    if (read < this.readApplied) return [];
    this.readApplied = read;
    const next = new Map<string, CompiledFlag>();
    const ids = new Map<string, string>();
    const signatures = new Map<string, string>();
    for (const record of records) {
      next.set(record.key, this.compile(record));
      ids.set(String(record._id), record.key);
      signatures.set(record.key, signature(record));
    }
    const changed = [...new Set([...next.keys(), ...this.byKey.keys()])].filter(
      (key) => this.signatures.get(key) !== signatures.get(key),
    );
    this.byKey = next;
    this.keyById = ids;
    this.signatures = signatures;
    return changed;
  }

  private compile(record: FlagRecord): CompiledFlag {
    return compileFlag(record, this.options.segments, this.options.onSegmentProblem);
  }

  /**
   * Opens the change stream and waits for its cursor to exist on the server (the first `tryNext`
   * runs the aggregate), returning a change that may already have arrived.
   */
  private async openStream(): Promise<ChangeStreamDocument<FlagRecord> | null | "unsupported" | undefined> {
    try {
      this.stream = this.watch();
      const first = await this.stream.tryNext();
      this.resumeToken = this.stream.resumeToken ?? this.resumeToken;
      return first;
    } catch (error) {
      await this.stream?.close().catch(() => undefined);
      this.stream = undefined;
      if (isUnsupported(error)) {
        this.options.logger.warn("Feature flags: change streams unavailable, polling for changes instead", {
          reason: describe(error),
        });
        return "unsupported";
      }
      throw error;
    }
  }

  /** A change stream from the last resume token, else from `startAt`, else from now (its cursor opens on the first read). */
  private watch(): ChangeStream<FlagRecord> {
    return this.options.model.collection.watch<FlagRecord>([], {
      fullDocument: "updateLookup",
      ...changeStreamStart(this.resumeToken, this.startAt),
    }) as unknown as ChangeStream<FlagRecord>;
  }

  /**
   * Applies changes as they come. Any error closes the stream; it is reopened from the last
   * resume token with exponential backoff, and the cache is reloaded to catch up on anything the
   * token cannot vouch for (a token that fell out of the history is dropped).
   */
  private async follow(): Promise<void> {
    const base = this.options.retryDelayMs ?? 250;
    let delay = base;
    // From start()'s operation time the first stream catches up by itself: no reload, no wait.
    if (!this.stream && this.startAt) this.stream = this.watch();
    while (this.running) {
      if (!this.stream) {
        try {
          const first = await this.openStream();
          if (first === "unsupported") return this.startPolling();
          const changed = await this.reload();
          if (changed.length > 0) this.options.onChange?.(changed);
          if (first) this.apply(first);
          this.options.logger.info("Feature flags: change stream reopened");
          delay = base;
        } catch (error) {
          if (!this.running) return;
          if (isHistoryLost(error)) this.resumeToken = this.startAt = undefined;
          this.options.logger.warn("Feature flags: could not reopen the change stream yet", { reason: describe(error) });
          await this.backoff(delay);
          delay = Math.min(delay * 2, 30_000);
        }
        continue;
      }
      try {
        const change = await this.stream.tryNext();
        this.resumeToken = this.stream.resumeToken ?? this.resumeToken;
        if (change) this.apply(change);
      } catch (error) {
        if (!this.running) return;
        await this.stream?.close().catch(() => undefined);
        this.stream = undefined;
        if (isUnsupported(error)) {
          this.options.logger.warn("Feature flags: change streams unavailable, polling for changes instead", { reason: describe(error) });
          return this.startPolling();
        }
        this.options.logger.warn("Feature flags: change stream failed, reopening", { reason: describe(error) });
        await this.backoff(delay);
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }

  /** Waits `ms` before the next reopen attempt, or until stop(). */
  private backoff(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private apply(change: ChangeStreamDocument<FlagRecord>): void {
    switch (change.operationType) {
      case "insert":
      case "update":
      case "replace": {
        const id = String(change.documentKey._id);
        const record = change.fullDocument;
        const previousKey = this.keyById.get(id);
        if (previousKey !== undefined) this.remove(id);
        if (record && record.deleted !== true) {
          this.byKey.set(record.key, this.compile(record));
          this.keyById.set(id, record.key);
          this.signatures.set(record.key, signature(record));
        }
        const keys = new Set([previousKey, record?.key].filter((key): key is string => key !== undefined));
        if (keys.size > 0) this.options.onChange?.([...keys]);
        return;
      }
      case "delete": {
        const key = this.remove(String(change.documentKey._id));
        if (key !== undefined) this.options.onChange?.([key]);
        return;
      }
      case "drop":
      case "rename":
      case "dropDatabase":
      case "invalidate": {
        const keys = [...this.byKey.keys()];
        this.byKey.clear();
        this.keyById.clear();
        this.signatures.clear();
        if (keys.length > 0) this.options.onChange?.(keys);
        return;
      }
      default:
        return;
    }
  }

  private remove(id: string): string | undefined {
    const key = this.keyById.get(id);
    if (key === undefined) return undefined;
    this.keyById.delete(id);
    this.byKey.delete(key);
    this.signatures.delete(key);
    return key;
  }

  private startPolling(): void {
    // stop() may have run while start() was loading: no timer would ever be cleared.
    if (!this.running) return;
    this.mode = "poll";
    const interval = this.options.pollIntervalMs ?? 5000;
    this.pollTimer = setInterval(() => {
      // A read slower than the interval (a busy database) is not joined by more reads behind it.
      if (this.poll) return;
      this.poll = this.reload()
        .then(
          (changed) => {
            if (changed.length > 0 && this.running) this.options.onChange?.(changed);
          },
          (error: unknown) => {
            if (this.running) this.options.logger.warn("Feature flags: polling failed", { reason: describe(error) });
          },
        )
        .finally(() => {
          this.poll = undefined;
        });
    }, interval);
    this.pollTimer.unref();
  }
}

/**
 * The started plugin's flag cache, for the fastest evaluation (no OpenFeature client in between).
 * Resolving it before the plugin started, or after it stopped, throws `FEATURE_FLAGS_NOT_STARTED`.
 *
 * @example
 * const cache = ctx.resolve(FLAG_CACHE); // in a start() of a plugin with dependsOn: ["feature-flags"], or per request
 * cache.get("new-checkout")?.evaluate(user, user.id).value;
 */
export const FLAG_CACHE = token<FlagCache>("feature-flags.FlagCache");

function signature(record: FlagRecord): string {
  const { _id, created, updated, ...definition } = record as FlagRecord & { __v?: unknown };
  void _id;
  void created;
  void updated;
  return JSON.stringify(definition);
}

function isUnsupported(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" && CHANGE_STREAMS_UNSUPPORTED.has(code);
}

function isHistoryLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 286 || code === 260 || code === 280;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
