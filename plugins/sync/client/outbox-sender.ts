import type { EngineContext } from "./engine-context.js";
import { unref } from "./engine-context.js";
import { generateMutationId } from "./mutation-id.js";
import { entityKey, type OutboxRow } from "./records.js";
import { applyAck, applyServerState } from "./server-state.js";
import { SyncRequestError } from "./transport.js";
import type { BatchOutcome, SyncAck, SyncNack, WireMutation } from "./wire-types.js";

const keyOf = (row: OutboxRow) => entityKey(row.collection, row.id);

/** The server's limit is per second; a longer wait asked for is capped, so the queue never stalls for long on one answer. */
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

/** An outcome as the client can read it (an object naming its mutation, a nack with a code), or undefined. */
function readable(outcome: unknown): { readonly mutationId: string; readonly outcome: BatchOutcome } | undefined {
  if (typeof outcome !== "object" || outcome === null) return undefined;
  const { ack, nack, notAttempted } = outcome as Record<string, { mutationId?: unknown; code?: unknown } | null | undefined>;
  const named = (entry: typeof ack) => typeof entry === "object" && entry !== null && typeof entry.mutationId === "string";
  if (named(ack)) return { mutationId: ack!.mutationId as string, outcome: { ack: ack as unknown as SyncAck } };
  if (named(nack) && typeof nack!.code === "string") return { mutationId: nack!.mutationId as string, outcome: { nack: nack as unknown as SyncNack } };
  if (named(notAttempted)) return { mutationId: notAttempted!.mutationId as string, outcome: { notAttempted: { mutationId: notAttempted!.mutationId as string } } };
  return undefined;
}

/** Backoff after a failed send: 500 ms doubling to 30 s, with jitter so many clients do not retry in step. */
function backoffMs(failures: number, random: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 10)) * (0.5 + random / 2);
}

/**
 * The write side of the engine: sends the outbox in batches (`sync:mutateBatch` on the socket,
 * `POST /sync/mutate/batch` while it is down) and settles each row by its outcome. Only the first
 * unsettled row of each entity is sent, so an entity's changes apply in order and each knows the
 * seq it is based on; a conflict or a terminal refusal blocks only that entity's later rows.
 * Network and server failures keep every row and retry with backoff (a row given `maxAttempts`
 * fails once that many sends failed); `rate_limited` waits `retryAfterMs`; a 401 pauses for auth.
 */
export class OutboxSender {
  draining = false;
  sentThisDrain = 0;
  totalThisDrain = 0;
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** After a whole batch was refused (a malformed entry), send one row at a time to find it. */
  private oneByOne = false;
  /** Entities whose last send got a server error: they wait out their own backoff while the others go on. */
  private readonly deferred = new Map<string, { failures: number; timer?: ReturnType<typeof setTimeout> }>();

  /** Ends a rate-limit wait early: a stopped client keeps no timer and no send pending. */
  private wake: (() => void) | undefined;

  constructor(private readonly context: EngineContext) {}

  /** Sends soon (after the current step), unless a backoff is waiting. */
  schedule(): void {
    if (this.retryTimer !== undefined) return;
    queueMicrotask(() => void this.drain());
  }

  /** Sends now (cancelling a backoff wait) until nothing sendable is left or sending fails. */
  drain(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.run();
          // A send requested meanwhile waits out a backoff the run just set (else retries would
          // go back to back and use up maxAttempts in milliseconds).
        } while (this.again && this.retryTimer === undefined && this.context.active());
      } finally {
        this.running = undefined;
        this.draining = false;
        this.context.changed();
      }
    })();
    return this.running;
  }

  stop(): void {
    this.wake?.();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.failures = 0;
    for (const entry of this.deferred.values()) clearTimeout(entry.timer);
    this.deferred.clear();
  }

  /** The rows to send next: the head row of each entity that is not blocked, in queue order. */
  sendable(limit: number): OutboxRow[] {
    const rows = this.context.database.outbox();
    if (this.context.settings.haltQueueOnConflict && rows.some((row) => row.status === "conflict")) return [];
    const heads = new Set<string>();
    const batch: OutboxRow[] = [];
    for (const row of rows) {
      const key = keyOf(row);
      if (heads.has(key)) continue;
      heads.add(key);
      if (row.status !== "queued" || this.deferred.get(key)?.timer !== undefined) continue;
      batch.push(row);
      if (batch.length >= limit) break;
    }
    return batch;
  }

  private async run(): Promise<void> {
    const { context } = this;
    let first = true;
    while (context.active()) {
      const batch = this.sendable(this.oneByOne ? 1 : Math.min(100, Math.max(1, context.settings.batchSize)));
      if (batch.length === 0) return;
      if (first && !this.draining) {
        this.sentThisDrain = 0;
      }
      first = false;
      this.draining = true;
      this.totalThisDrain = this.sentThisDrain + context.database.outbox().filter((row) => row.status === "queued").length;
      context.changed();
      const wire = batch.map((row) => this.wireOf(row));
      let outcomes: readonly BatchOutcome[];
      try {
        context.debug.count("batchesSent");
        context.debug.log("send-batch", { size: wire.length, over: context.transport.isConnected() ? "socket" : "http" }, wire);
        outcomes = context.transport.isConnected()
          ? await context.transport.mutateBatch(wire, generateMutationId(context.random))
          : await context.http.mutateBatch(wire, await context.token());
      } catch (error) {
        const kind = error instanceof SyncRequestError ? error.kind : "network";
        context.debug.log("send-failed", { kind, message: error instanceof Error ? error.message : String(error) });
        if (kind === "auth") return context.pauseAuth("unauthorized");
        if (kind === "refused") {
          if (batch.length > 1) {
            this.oneByOne = true;
            continue;
          }
          this.settle(batch[0]!, { mutationId: batch[0]!.mutationId, code: "validation", message: "The server refused the mutation's envelope" });
          continue;
        }
        return this.retryLater(batch);
      }
      if (!context.active()) return;
      const wait = this.apply(batch, outcomes);
      if (wait === "backoff") return this.retryLater(batch);
      if (typeof wait === "number") {
        context.debug.count("retries");
        await this.sleep(wait);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** Settles the batch's rows by their outcomes; says whether to wait before the next batch. */
  private apply(batch: readonly OutboxRow[], outcomes: readonly BatchOutcome[]): "backoff" | number | undefined {
    const { context } = this;
    let wait: "backoff" | number | undefined;
    // Outcomes are matched by mutationId, not by position: a short, reordered or foreign list
    // must not settle one row with another's answer (an ack of another mutation lost the write).
    const answers = new Map<string, BatchOutcome>();
    for (const entry of Array.isArray(outcomes) ? outcomes : []) {
      const answer = readable(entry);
      if (answer && !answers.has(answer.mutationId)) answers.set(answer.mutationId, answer.outcome);
    }
    let answered = false;
    context.database.change(() => {
      for (const sentRow of batch) {
        const outcome = answers.get(sentRow.mutationId);
        // The row may have gone while it was in flight (wipeLocalData): its answer must not bring it back.
        const row = context.database.outboxRow(sentRow.mutationId);
        if (!outcome || "notAttempted" in outcome || !row) continue;
        if ("ack" in outcome) {
          // An ack without a seq cannot say where the entity now is: the row is sent again (replays are idempotent).
          if (!Number.isSafeInteger(outcome.ack.seq) || outcome.ack.seq < 1) continue;
          answered = true;
          this.failures = 0;
          this.deferred.delete(keyOf(row));
          this.oneByOne = false;
          context.debug.count("acks");
          this.acknowledge(row, outcome.ack.seq);
          continue;
        }
        const nack = outcome.nack;
        answered = true;
        context.debug.count("nacks");
        context.debug.log("nack", { mutationId: nack.mutationId, code: nack.code });
        if (nack.code === "rate_limited") {
          // A missing, negative or non-numeric wait would resend at once, into the same limit.
          const after = nack.retryAfterMs;
          wait = typeof after === "number" && after >= 0 ? Math.min(after, MAX_RATE_LIMIT_WAIT_MS) : 1_000;
          context.debug.log("rate-limited", { waitMs: wait });
        } else if (nack.code === "forbidden" && !context.active()) {
          // A refusal that raced an auth expiry: retried after the refresh.
          wait = "backoff";
        } else if (nack.code === "error") {
          this.defer(row);
        } else {
          this.settle(row, nack);
        }
      }
    });
    // No row was answered (an empty or foreign list): sending again at once would loop.
    return wait ?? (answered ? undefined : "backoff");
  }

  private acknowledge(row: OutboxRow, seq: number): void {
    const { database } = this.context;
    database.removeRow(row.mutationId);
    applyAck(database, row, seq, this.context.now());
    this.sentThisDrain++;
    // The entity's next change was based on this one: it is based on this seq now.
    const next = database.pendingRows(row.collection, row.id)[0];
    if (next && next.operation !== "create" && next.baseVersion === undefined) database.putRow({ ...next, baseVersion: seq });
  }

  /** A refusal that waits for the app: `conflict` blocks the entity, other codes fail the row. */
  private settle(row: OutboxRow, nack: SyncNack): void {
    const { database } = this.context;
    const now = this.context.now();
    database.change(() => {
      database.putRow({ ...row, status: nack.code === "conflict" ? "conflict" : "failed" });
      database.putConflict({
        mutationId: row.mutationId,
        collection: row.collection,
        entityId: row.id,
        operation: row.operation,
        ...(row.data === undefined ? {} : { data: row.data }),
        code: nack.code,
        ...(nack.message === undefined ? {} : { message: nack.message }),
        ...(nack.serverDoc === undefined ? {} : { serverDoc: nack.serverDoc }),
        ...(nack.serverSeq === undefined ? {} : { serverSeq: nack.serverSeq }),
        ...(nack.serverDeleted === undefined ? {} : { serverDeleted: nack.serverDeleted }),
        at: now,
      });
      // The conflict carries the server's current entity: the store learns it (the pending change stays on top).
      if (nack.code === "conflict" && nack.serverSeq !== undefined && nack.serverDoc) {
        const stream = database.serverState(row.collection, row.id)?.stream;
        if (stream !== undefined) applyServerState(database, { collection: row.collection, id: row.id, stream, seq: nack.serverSeq, deleted: nack.serverDeleted ?? false, data: nack.serverDoc }, now);
      }
    });
    this.sentThisDrain++;
  }

  /** A server error (5xx) on one row: that entity backs off; the rest of the queue keeps going. */
  private defer(row: OutboxRow): void {
    const key = keyOf(row);
    const entry = this.deferred.get(key) ?? { failures: 0 };
    entry.failures++;
    this.context.debug.count("retries");
    const current = this.context.database.outboxRow(row.mutationId);
    if (current && this.countFailedAttempt(current)) {
      this.deferred.delete(key);
      return;
    }
    entry.timer = unref(
      setTimeout(() => {
        entry.timer = undefined;
        if (this.context.active()) this.schedule();
      }, backoffMs(entry.failures, this.context.random())),
    );
    this.deferred.set(key, entry);
  }

  private retryLater(batch: readonly OutboxRow[]): void {
    const { context } = this;
    this.failures++;
    context.debug.count("retries");
    // A send cut short by going offline or an auth pause is not the mutation's failed attempt.
    if (context.active())
      context.database.change(() => {
        for (const row of batch) {
        const current = context.database.outboxRow(row.mutationId);
          if (current?.status === "queued") this.countFailedAttempt(current);
        }
      });
    const delay = backoffMs(this.failures, context.random());
    context.debug.log("retry-scheduled", { inMs: Math.round(delay) });
    this.retryTimer = unref(
      setTimeout(() => {
        this.retryTimer = undefined;
        if (context.active()) void this.drain();
      }, delay),
    );
  }

  /**
   * Counts a send that failed retryably; a row out of its `maxAttempts` fails for good (as a
   * terminal refusal would: listed in conflicts, its entity blocked until `retryFailed`).
   * Says whether it gave up.
   */
  private countFailedAttempt(row: OutboxRow): boolean {
    const attempts = row.attempts + 1;
    if (row.maxAttempts === undefined || attempts < row.maxAttempts) {
      this.context.database.putRow({ ...row, attempts });
      return false;
    }
    this.context.debug.log("gave-up", { mutationId: row.mutationId, attempts });
    this.settle({ ...row, attempts }, { mutationId: row.mutationId, code: "error", message: `No answer that settled it after ${attempts} attempt(s) (maxAttempts ${row.maxAttempts})` });
    return true;
  }

  private wireOf(row: OutboxRow): WireMutation {
    const baseVersion = row.operation === "create" ? undefined : (row.baseVersion ?? this.context.database.serverState(row.collection, row.id)?.seq ?? 0);
    return {
      mutationId: row.mutationId,
      collection: row.collection,
      operation: row.operation,
      id: row.id,
      ...(row.data === undefined || row.operation === "delete" ? {} : { data: { ...row.data } }),
      ...(baseVersion === undefined ? {} : { baseVersion }),
    };
  }
}
