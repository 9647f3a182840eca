import { randomUUID } from "node:crypto";
import type { Binary } from "mongodb";
import type { Model } from "mongoose";
import { isDuplicateKeyError } from "../../contracts/database.js";
import { IdempotencyErrors } from "./errors.js";
import type { IdempotencyKeyFields, StoredResponse } from "./idempotency-key-model.js";

/** How long keys live and how long a running request holds one, in milliseconds. */
export interface IdempotencyKeyTimes {
  readonly keepMs: number;
  readonly lockMs: number;
  /** The clock (tests move it). */
  readonly now?: () => number;
}

/** This request holds the key: answer it, then `complete` with the answer (or `release` the key). */
export interface RunningClaim {
  readonly kind: "run";
  complete(response: StoredResponse): Promise<void>;
  release(): Promise<void>;
}

/** The key was answered before, for the same request: send this again. */
export interface Replay {
  readonly kind: "replay";
  readonly response: StoredResponse;
}

/** A new claim may lose races with other claimants this many times before the request is told to retry. */
const CLAIM_ATTEMPTS = 3;

/**
 * The keys' bookkeeping, in the database so every process of the app shares it. A request claims
 * its key with one insert (the unique `{scope, key}` index makes concurrent claims race fairly);
 * the loser finds the winner's row and either replays its stored answer, waits (409 while the
 * claim holds), or — when the claim lapsed (its process died) or the key expired — takes the row
 * over with a compare-and-set on the old claim.
 *
 * @example
 * const claim = await keys.claim("user:65f0…", "8e03978e-…", fingerprint);
 * if (claim.kind === "replay") return send(claim.response);
 */
export class IdempotencyKeys {
  private readonly now: () => number;

  constructor(
    private readonly model: Model<IdempotencyKeyFields>,
    private readonly times: IdempotencyKeyTimes,
  ) {
    this.now = times.now ?? Date.now;
  }

  /**
   * Claims `key` for a request, or says what its first use answered. Throws 422
   * `IDEMPOTENCY_KEY_REUSED` when the key went with another request, and 409
   * `IDEMPOTENCY_IN_PROGRESS` while that request is still being answered.
   */
  async claim(scope: string, key: string, fingerprint: string): Promise<RunningClaim | Replay> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const now = this.now();
      const claim = randomUUID();
      const fresh = { fingerprint, claim, lockedUntil: new Date(now + this.times.lockMs), expiresAt: new Date(now + this.times.keepMs) };
      // One round trip either way: inserts the claim when the key is new, else returns the row as it was.
      let found: IdempotencyKeyFields | null;
      try {
        found = await this.model.findOneAndUpdate({ scope, key }, { $setOnInsert: fresh }, { upsert: true, returnDocument: "before", lean: true });
      } catch (error) {
        // Two new claims of one key raced to insert it (MongoDB retries those itself; not every server does).
        if (isDuplicateKeyError(error)) continue;
        throw error;
      }
      if (!found) return this.running(scope, key, claim);
      // Gone since the insert failed (expired and removed, or released): claim it afresh.
      if (!found) continue;
      if (found.expiresAt.getTime() <= now) {
        if (await this.takeOver({ scope, key, expiresAt: found.expiresAt }, fresh)) return this.running(scope, key, claim);
        continue;
      }
      if (found.fingerprint !== fingerprint) {
        throw IdempotencyErrors.KEY_REUSED({ detail: "This Idempotency-Key was used for another request (another route or another body); send a new key with each new request" });
      }
      if (found.response) {
        const { status, body, contentType, location, etag } = found.response;
        return { kind: "replay", response: { status, body: bytesOf(body), contentType, location, etag } };
      }
      const lockedUntil = found.lockedUntil?.getTime() ?? 0;
      if (lockedUntil > now) throw inProgress();
      // The request that held it stopped without an answer (its process ended): this one runs it.
      if (await this.takeOver({ scope, key, claim: found.claim }, fresh)) return this.running(scope, key, claim);
    }
    throw inProgress();
  }

  /** Replaces a row found lapsed, unless another request replaced it first. */
  private async takeOver(filter: Record<string, unknown>, fresh: Partial<IdempotencyKeyFields>): Promise<boolean> {
    const { matchedCount } = await this.model.updateOne(filter, { $set: fresh, $unset: { response: 1 } });
    return matchedCount === 1;
  }

  private running(scope: string, key: string, claim: string): RunningClaim {
    // Both write only while this request's claim is the row's: one taken over meanwhile stays the other's.
    return {
      kind: "run",
      complete: async (response) => {
        await this.model.updateOne({ scope, key, claim }, { $set: { response }, $unset: { claim: 1, lockedUntil: 1 } });
      },
      release: async () => {
        await this.model.deleteOne({ scope, key, claim });
      },
    };
  }
}

/** A lean read gives a BSON `Binary` where the schema says Buffer. */
function bytesOf(body: Buffer | Binary | null | undefined): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer);
}

/** The first request is usually answered within the second: ask again then (its answer is replayed). */
function inProgress() {
  return IdempotencyErrors.IN_PROGRESS({
    detail: "A request with this Idempotency-Key is still being answered; retry it shortly to get its answer",
    meta: { retryAfterSeconds: 1 },
  });
}
