import { Buffer } from "node:buffer";
import type { ValidateFunction } from "ajv";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Authenticator } from "../../contracts/authenticator.js";
import type { RequestUser } from "../../contracts/request-user.js";
import type { SvcSocket } from "../../contracts/socket-server.js";
import type { APIError } from "../../kernel/api-error.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { runWithRequestContext } from "../../kernel/request-context.js";
import { AuthErrors } from "../auth/index.js";
import { ajvFor, fromAjvErrors } from "../validation/index.js";
import { applyInOrder, mutationIdOf, type NotAttempted } from "./apply-in-order.js";
import { CheckTrouble } from "./check-trouble.js";
import { SyncErrors } from "./errors.js";
import { nack, type MutationOutcome } from "./nack.js";
import { socketRequest } from "./socket-request.js";
import { roomOf } from "./sync-delta.js";
import { BATCH_BODY_SCHEMA } from "./sync-route-schemas.js";
import type { SyncServices } from "./sync-tokens.js";

/** The limits of one socket (SPEC §8 defaults in `realtimeApp`). */
export interface SyncSocketLimits {
  readonly maxSubscriptions: number;
  readonly maxPayloadBytes: number;
  readonly authCheckIntervalMs: number;
  /** A mutation reuses a credential check younger than this, in ms (0: check before every one). */
  readonly authFreshnessMs: number;
}

export interface SyncSocketOptions {
  readonly services: SyncServices;
  readonly authenticator: Authenticator;
  /** Mutations per second per socket (each batch entry is a point), keyed by socket id. */
  readonly limiter: RateLimiterAbstract;
  readonly limits: SyncSocketLimits;
  readonly logger: SvcLogger;
  /** Shared by every socket of the server, so a database outage is logged once, not per socket and check. */
  readonly trouble: { readonly credential: CheckTrouble; readonly streams: CheckTrouble };
}

/** `sync:auth-expired`'s reason (SPEC §6.1). */
export type AuthExpiredReason = "expired" | "disabled";

/** The answer to `sync:mutateBatch` given to an acknowledgement callback (events go out per entry). */
export interface BatchAnswer {
  readonly batchId?: string;
  readonly results: (MutationOutcome | NotAttempted)[];
}

type Ack = (answer: unknown) => void;

const SUBSCRIPTION_SCHEMA = {
  type: "object",
  required: ["collections"],
  additionalProperties: false,
  properties: { collections: { type: "array", minItems: 1, maxItems: 100, items: { type: "string", minLength: 1, maxLength: 128 } } },
};
/** The longest a timer may wait in Node (about 24.8 days); later expiries are re-checked then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

// Compiled once, when the module loads (ajvFor keeps one Ajv per variant).
const eventAjv = ajvFor({ coerceTypes: false, removeAdditional: false });
const validateSubscription = eventAjv.compile(SUBSCRIPTION_SCHEMA);
const validateBatch = eventAjv.compile(BATCH_BODY_SCHEMA);

/**
 * The sync side of one socket (SPEC §6.1): subscriptions to collections (joining the rooms of the
 * caller's streams), mutations and batches through the same mutation path as HTTP, applied one
 * at a time in arrival order, the per-socket limits, and the credential's watch — re-checked when
 * it expires, every `authCheckIntervalMs` and before mutations (at most once per
 * `authFreshnessMs`), so an expired token or a user disabled meanwhile gets `sync:auth-expired`
 * and the socket is no longer served.
 *
 * @example
 * const session = new SyncSocketSession(socket, { services, authenticator, limiter, limits, logger, trouble: socketCheckTrouble(logger) });
 * session.attach();
 * session.dispose(); // on stop
 */
export class SyncSocketSession {
  /** Collection → the stream rooms joined for it. */
  private readonly subscriptions = new Map<string, readonly string[]>();
  /** Events are handled one at a time, in arrival order: a client's outbox order is the apply order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Rate-limit points are taken in arrival order too (see `takePoints`). */
  private admission: Promise<unknown> = Promise.resolve();
  private serving = true;
  private expiryTimer?: NodeJS.Timeout;
  private checkTimer?: NodeJS.Timeout;
  /** When the credential last authenticated (a burst of mutations shares one check). */
  private verifiedAt = Number.NEGATIVE_INFINITY;
  /** A credential check waits in the queue and has not started: the next one due need not queue another. */
  private recheckQueued = false;
  private readonly listeners: [string, (...args: unknown[]) => void][] = [];

  constructor(
    private readonly socket: SvcSocket,
    private readonly options: SyncSocketOptions,
  ) {}

  attach(): void {
    this.on("sync:subscribe", (payload, ack) => this.enqueue(() => this.subscribe(payload, ack)));
    this.on("sync:unsubscribe", (payload, ack) => this.enqueue(() => this.unsubscribe(payload, ack)));
    this.on("sync:mutate", (payload, ack) => void this.receiveMutation(payload, ack));
    this.on("sync:mutateBatch", (payload, ack) => void this.receiveBatch(payload, ack));
    this.socket.once("disconnect", () => this.dispose());
    if (this.socket.data.user && this.socket.data.credential) {
      void this.scheduleExpiryCheck();
      this.checkTimer = setInterval(() => this.queueRecheck(), this.options.limits.authCheckIntervalMs);
      this.checkTimer.unref();
    }
  }

  /** Stops serving this socket: timers, listeners and rooms go; the socket itself stays connected. */
  dispose(): void {
    this.serving = false;
    clearTimeout(this.expiryTimer);
    clearInterval(this.checkTimer);
    for (const [event, listener] of this.listeners) this.socket.off(event, listener);
    this.listeners.length = 0;
    this.leaveAll();
  }

  /** Tells the client its subscriptions may have missed changes (the change stream could not resume). */
  reconcile(reason: string): void {
    if (this.serving && this.subscriptions.size > 0) this.socket.emit("sync:reconcile", { reason });
  }

  private on(event: string, handler: (payload: unknown, ack: Ack | undefined) => void): void {
    const listener = (...args: unknown[]) => {
      const ack = typeof args[args.length - 1] === "function" ? (args.pop() as Ack) : undefined;
      handler(args[0], ack);
    };
    this.socket.on(event, listener);
    this.listeners.push([event, listener]);
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(() => (this.serving ? runWithRequestContext({ userId: this.socket.data.user?.id }, work) : undefined));
    this.queue = next.catch((error: unknown) => this.options.logger.error("Sync: a socket event failed", { reason: error instanceof Error ? error.message : String(error) }));
    return this.queue as Promise<void>;
  }

  // --- subscriptions -------------------------------------------------------------------------

  private async subscribe(payload: unknown, ack: Ack | undefined): Promise<void> {
    if (!this.socket.data.user) return this.refuse("", HttpErrors.UNAUTHENTICATED({ detail: "Sync needs a signed-in socket: connect with auth: { token }" }), ack);
    if (!validateSubscription(payload)) return this.refuse("", SyncErrors.INVALID_EVENT({ detail: describeIssues(validateSubscription) }), ack);
    // Checked as a mutation is: a user disabled since the last check must not start receiving
    // deltas (a lapsed credential gets sync:auth-expired and the socket is let go).
    const user = await this.currentUser();
    // Not lapsed (that let the socket go), only not checkable now: a 503 to retry, not a 401.
    if (!user) return this.serving ? this.refuse("", SyncErrors.UNAVAILABLE({ detail: "The socket's credential could not be checked: subscribe again" }), ack) : undefined;
    const answers: unknown[] = [];
    for (const name of new Set((payload as { collections: string[] }).collections)) {
      const collection = this.options.services.collections.get(name);
      let refusal: APIError | undefined;
      let streams: string[] = [];
      try {
        if (!collection) refusal = SyncErrors.UNKNOWN_COLLECTION({ detail: `No synced collection "${name}"` });
        else if (!(await this.options.services.membership.mayList(user, collection))) refusal = SyncErrors.COLLECTION_FORBIDDEN({ detail: `Listing ${name} is not permitted` });
        else if (!this.subscriptions.has(name) && this.subscriptions.size >= this.options.limits.maxSubscriptions) {
          refusal = SyncErrors.TOO_MANY_SUBSCRIPTIONS({ detail: `A socket may subscribe to at most ${this.options.limits.maxSubscriptions} collections` });
        } else streams = await this.options.services.membership.streamsOf(user, collection);
      } catch (error) {
        // The caller's permissions or streams could not be looked up (getUserScopes or the
        // database failed): every collection still gets its answer, so no acknowledgement hangs.
        this.options.trouble.streams.failed(error);
        refusal = SyncErrors.UNAVAILABLE({ detail: `${name} could not be subscribed to now: subscribe again` });
      }
      if (!this.serving) return;
      if (!refusal) this.options.trouble.streams.succeeded();
      if (refusal || !collection) {
        answers.push(this.sendError(name, refusal!));
        continue;
      }
      this.join(name, streams);
      const subscribed = { collection: name, streams };
      // Sent after the rooms are joined: the client then pages each stream from its cursor, and
      // any write it might have missed before joining is in that page.
      this.socket.emit("sync:subscribed", subscribed);
      answers.push(subscribed);
    }
    ack?.(answers);
  }

  private async unsubscribe(payload: unknown, ack: Ack | undefined): Promise<void> {
    if (!validateSubscription(payload)) return this.refuse("", SyncErrors.INVALID_EVENT({ detail: describeIssues(validateSubscription) }), ack);
    const left: string[] = [];
    for (const name of (payload as { collections: string[] }).collections) {
      if (this.subscriptions.has(name)) left.push(name);
      this.join(name, []);
    }
    ack?.({ collections: left });
  }

  /** Makes the socket's rooms for `collection` exactly `streams` (none: unsubscribed). */
  private join(collection: string, streams: readonly string[]): void {
    const before = this.subscriptions.get(collection) ?? [];
    for (const stream of before) if (!streams.includes(stream)) void this.socket.leave(roomOf(stream));
    for (const stream of streams) if (!before.includes(stream)) void this.socket.join(roomOf(stream));
    if (streams.length === 0) this.subscriptions.delete(collection);
    else this.subscriptions.set(collection, streams);
  }

  private leaveAll(): void {
    for (const streams of this.subscriptions.values()) for (const stream of streams) void this.socket.leave(roomOf(stream));
    this.subscriptions.clear();
  }

  // --- mutations -----------------------------------------------------------------------------

  private async receiveMutation(payload: unknown, ack: Ack | undefined): Promise<void> {
    const mutationId = mutationIdOf(payload);
    const refused = this.admissionRefusal(mutationId, payload) ?? (await this.rateRefusal(mutationId));
    if (refused) return this.answer(refused, ack);
    await this.enqueue(async () => {
      const user = await this.currentUser();
      const outcome = user ? await this.options.services.mutations.apply(user, payload, socketRequest(this.socket, user, "sync:mutate")) : this.unchecked(mutationId);
      this.answer(outcome, ack);
    });
  }

  private async receiveBatch(payload: unknown, ack: Ack | undefined): Promise<void> {
    if (!this.socket.data.user) return this.refuse("", HttpErrors.UNAUTHENTICATED({ detail: "Sync needs a signed-in socket: connect with auth: { token }" }), ack);
    if (!validateBatch(payload)) return this.refuse("", SyncErrors.INVALID_EVENT({ detail: describeIssues(validateBatch) }), ack);
    const { mutations: entries, batchId } = payload as { mutations: unknown[]; batchId?: string };
    const tooLarge = this.admissionRefusal(mutationIdOf(entries[0]), payload);
    // Points are taken as the batch arrives; the first entry over the limit is nacked in order.
    const { allowed, limited } = tooLarge ? { allowed: 0, limited: undefined } : await this.takePoints(entries.length);
    await this.enqueue(async () => {
      const user = await this.currentUser();
      const req = user && socketRequest(this.socket, user, "sync:mutateBatch");
      let index = 0;
      // Entries refused before they are tried: the batch is too large, or over the rate limit.
      const gate = (entry: unknown): MutationOutcome | undefined => {
        const position = index++;
        if (tooLarge) return tooLarge;
        if (position >= allowed) return rateLimited(mutationIdOf(entry), limited);
        return undefined;
      };
      const apply = async (entry: unknown): Promise<MutationOutcome> =>
        user && req ? this.options.services.mutations.apply(user, entry, req) : this.unchecked(mutationIdOf(entry));
      const results = await applyInOrder(entries, apply, gate);
      for (const result of results) if ("ack" in result || "nack" in result) this.emitOutcome(result);
      ack?.({ ...(batchId === undefined ? {} : { batchId }), results } satisfies BatchAnswer);
    });
  }

  /**
   * The nack of a mutation that found no user: `forbidden` once the credential was refused (the
   * socket is let go), but `error` when the check could not be made (the database away) and the
   * socket is still served — a client gives up on a forbidden write, and sends an error again.
   */
  private unchecked(mutationId: string): MutationOutcome {
    if (!this.serving) return nack(mutationId, "forbidden", { message: "The socket's credential is no longer valid" });
    return nack(mutationId, "error", { message: "The socket's credential could not be checked: send it again" });
  }

  /** Refusals decided before anything is queued: no user, or a payload over the size limit. */
  private admissionRefusal(mutationId: string, payload: unknown): MutationOutcome | undefined {
    if (!this.socket.data.user || !this.serving) return nack(mutationId, "forbidden", { message: "Sync needs a signed-in socket: connect with auth: { token }" });
    const bytes = Buffer.byteLength(JSON.stringify(payload ?? null) ?? "");
    if (bytes > this.options.limits.maxPayloadBytes) return nack(mutationId, "validation", { message: `The payload is ${bytes} bytes; at most ${this.options.limits.maxPayloadBytes} are accepted` });
    return undefined;
  }

  private async rateRefusal(mutationId: string): Promise<MutationOutcome | undefined> {
    const { limited } = await this.takePoints(1);
    return limited ? rateLimited(mutationId, limited) : undefined;
  }

  /**
   * Takes up to `count` points of this socket's per-second budget, one per mutation, stopping at
   * the first refused: how many were allowed, and the limiter's answer if one was refused. Events
   * take their points in arrival order (a later event waits for an earlier batch's points).
   */
  private takePoints(count: number): Promise<{ allowed: number; limited?: RateLimiterRes }> {
    const taking = this.admission.then(async () => {
      for (let allowed = 0; allowed < count; allowed++) {
        try {
          await this.options.limiter.consume(this.socket.id, 1);
        } catch (error) {
          if (error instanceof RateLimiterRes) return { allowed, limited: error };
          throw error;
        }
      }
      return { allowed: count };
    });
    this.admission = taking.catch(() => undefined);
    return taking;
  }

  private answer(outcome: MutationOutcome, ack: Ack | undefined): void {
    this.emitOutcome(outcome);
    ack?.(outcome);
  }

  private emitOutcome(outcome: MutationOutcome): void {
    if ("ack" in outcome) this.socket.emit("sync:ack", outcome.ack);
    else this.socket.emit("sync:nack", outcome.nack);
  }

  private refuse(collection: string, error: APIError, ack: Ack | undefined): void {
    const answer = this.sendError(collection, error);
    ack?.({ errors: [answer] });
  }

  /** `sync:error` with the collection it concerns, a message and the coded error of errors.md. */
  private sendError(collection: string, error: APIError) {
    const answer = { collection, message: error.detail ?? error.title, code: error.code, status: error.status };
    this.socket.emit("sync:error", answer);
    return answer;
  }

  // --- the credential ------------------------------------------------------------------------

  /**
   * The socket's user, checked again unless a check succeeded within `authFreshnessMs`
   * (undefined once the credential has lapsed).
   */
  private async currentUser(fresh = false): Promise<RequestUser | undefined> {
    const credential = this.socket.data.credential;
    if (!credential || !this.serving) return undefined;
    if (!fresh && this.socket.data.user && performance.now() - this.verifiedAt < this.options.limits.authFreshnessMs) return this.socket.data.user;
    try {
      const user = await this.options.authenticator.authenticateToken(credential);
      this.socket.data.user = user;
      this.verifiedAt = performance.now();
      this.options.trouble.credential.succeeded();
      return user;
    } catch (error) {
      this.lapsed(error);
      return undefined;
    }
  }

  private async scheduleExpiryCheck(): Promise<void> {
    const credential = this.socket.data.credential;
    if (!credential || !this.options.authenticator.expiresAt) return;
    try {
      const expiresAt = await this.options.authenticator.expiresAt(credential);
      if (!expiresAt || !this.serving) return;
      clearTimeout(this.expiryTimer);
      const wait = Math.min(Math.max(expiresAt.getTime() - Date.now(), 0), MAX_TIMER_MS);
      this.expiryTimer = setTimeout(() => this.queueRecheck(), wait);
      this.expiryTimer.unref();
    } catch (error) {
      this.lapsed(error);
    }
  }

  /**
   * Queues a check unless one is already waiting. Checks slower than `authCheckIntervalMs` (the
   * database slow or away) otherwise queued one per interval, and once it answered, the socket's
   * mutations waited behind the whole backlog of lookups. One that has started does not count: it
   * may have read the credential before it expired.
   */
  private queueRecheck(): void {
    if (this.recheckQueued) return;
    this.recheckQueued = true;
    void this.enqueue(() => {
      this.recheckQueued = false;
      return this.recheck();
    });
  }

  /** The periodic and at-expiry check: the credential, then the streams of every subscription. */
  private async recheck(): Promise<void> {
    const user = await this.currentUser(true);
    if (!user) return;
    await this.scheduleExpiryCheck();
    // Memberships change (a tenant left, a scope added): follow them, and say so when they did.
    for (const [name, before] of [...this.subscriptions]) {
      const collection = this.options.services.collections.get(name)!;
      let allowed: boolean;
      let streams: string[];
      try {
        allowed = await this.options.services.membership.mayList(user, collection);
        streams = allowed ? await this.options.services.membership.streamsOf(user, collection) : [];
      } catch (error) {
        // The app's getUserScopes could not answer (its database away): the subscriptions stay
        // as they are, and the next check decides.
        this.options.trouble.streams.failed(error);
        return;
      }
      this.options.trouble.streams.succeeded();
      if (!this.serving) return;
      if (sameStreams(before, streams)) continue;
      this.join(name, streams);
      if (allowed) this.socket.emit("sync:subscribed", { collection: name, streams });
      else this.sendError(name, SyncErrors.COLLECTION_FORBIDDEN({ detail: `Listing ${name} is no longer permitted` }));
    }
  }

  /**
   * A failed check: a 401 means the credential lapsed (expired, or its user disabled or deleted),
   * and the socket gets `sync:auth-expired` and is let go; anything else (the database briefly
   * away) is logged and the next check decides.
   */
  private lapsed(error: unknown): void {
    const status = (error as { status?: unknown }).status;
    if (status !== 401) {
      this.options.trouble.credential.failed(error);
      return;
    }
    if (!this.serving) return;
    const code = (error as { code?: unknown }).code;
    const reason: AuthExpiredReason = code === AuthErrors.USER_DISABLED.code || code === AuthErrors.USER_NOT_FOUND.code ? "disabled" : "expired";
    this.socket.emit("sync:auth-expired", { reason });
    this.dispose();
    // The credential is no longer good for anything this socket serves: the client reconnects
    // with a fresh one (socket.io clients update `auth` and call connect()).
    this.socket.disconnect(true);
  }
}

function rateLimited(mutationId: string, limited: RateLimiterRes | undefined): MutationOutcome {
  return nack(mutationId, "rate_limited", { message: "Too many mutations on this socket", retryAfterMs: Math.max(1, Math.ceil(limited?.msBeforeNext ?? 1000)) });
}

function sameStreams(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((stream) => b.includes(stream));
}

function describeIssues(validate: ValidateFunction): string {
  return fromAjvErrors(validate.errors ?? [])
    .slice(0, 5)
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join("; ");
}
