import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { AuthErrors } from "../errors.js";

/** A limit: `points` failures within `durationSeconds`, then blocked for `blockSeconds`. */
export interface FailureLimit {
  points: number;
  durationSeconds: number;
  /** How long a key stays blocked once over the limit (default `durationSeconds`). */
  blockSeconds?: number;
}

export interface LoginRateLimits {
  /** Failed logins per account (email), whatever the IP: stops distributed guessing. Default 10 per 15 min. */
  perAccount?: FailureLimit;
  /** Failed logins per client IP, whatever the account: stops spraying. Default 50 per 15 min. */
  perIp?: FailureLimit;
  /** Sign-ups per client IP (each costs a password hash). Default 30 per hour. */
  signupPerIp?: FailureLimit;
}

/**
 * Counters behind the limits. In-memory by default (per process); pass rate-limiter-flexible
 * limiters backed by a shared store (`RateLimiterMongo`, `RateLimiterRedis`) when several
 * instances serve the same users.
 */
export interface LoginRateLimiterStores {
  perAccount?: RateLimiterAbstract;
  perIp?: RateLimiterAbstract;
  signupPerIp?: RateLimiterAbstract;
}

/**
 * Failed-login throttling per account and per IP. Check before verifying a password (a blocked
 * key is refused even with the right password, so the limiter is not an oracle), record each
 * failure, clear the account's counter on success. Over the limit → 429 `AUTH_RATE_LIMITED`
 * with `meta.retryAfterSeconds`, which the routes send as `Retry-After`.
 *
 * @example
 * const limiter = new LoginRateLimiter();
 * await limiter.assertLoginAllowed(email, req.ip);
 * if (!ok) await limiter.recordFailure(email, req.ip); else await limiter.recordSuccess(email, req.ip);
 */
export class LoginRateLimiter {
  private readonly perAccount: RateLimiterAbstract;
  private readonly perIp: RateLimiterAbstract;
  private readonly signupPerIp: RateLimiterAbstract;

  constructor(limits: LoginRateLimits = {}, stores: LoginRateLimiterStores = {}) {
    this.perAccount = stores.perAccount ?? memory("login-account", limits.perAccount ?? { points: 10, durationSeconds: 15 * 60 });
    this.perIp = stores.perIp ?? memory("login-ip", limits.perIp ?? { points: 50, durationSeconds: 15 * 60 });
    this.signupPerIp = stores.signupPerIp ?? memory("signup-ip", limits.signupPerIp ?? { points: 30, durationSeconds: 3600 });
  }

  /** Throws 429 when the account or the IP is over its failure budget. */
  async assertLoginAllowed(account: string, ip: string): Promise<void> {
    const [byAccount, byIp] = await Promise.all([this.perAccount.get(accountKey(account)), this.perIp.get(ip)]);
    const blocked = [
      [byAccount, this.perAccount.points],
      [byIp, this.perIp.points],
    ].filter(([state, points]) => state && (state as RateLimiterRes).consumedPoints >= (points as number));
    if (blocked.length > 0) {
      throw tooMany(Math.max(...blocked.map(([state]) => (state as RateLimiterRes).msBeforeNext)));
    }
  }

  /** Counts a failed attempt against both the account and the IP. */
  async recordFailure(account: string, ip: string): Promise<void> {
    const results = await Promise.allSettled([this.perAccount.consume(accountKey(account)), this.perIp.consume(ip)]);
    for (const result of results) {
      if (result.status === "rejected" && !(result.reason instanceof RateLimiterRes)) throw result.reason;
    }
  }

  /** A successful login clears the account's failures (the IP's stay: it may be spraying). */
  async recordSuccess(account: string): Promise<void> {
    await this.perAccount.delete(accountKey(account));
  }

  /** Counts a sign-up; throws 429 when the IP is over its budget. */
  async consumeSignup(ip: string): Promise<void> {
    try {
      await this.signupPerIp.consume(ip);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw tooMany(error.msBeforeNext);
      throw error;
    }
  }
}

function memory(keyPrefix: string, limit: FailureLimit): RateLimiterAbstract {
  return new RateLimiterMemory({
    keyPrefix,
    points: limit.points,
    duration: limit.durationSeconds,
    blockDuration: limit.blockSeconds ?? limit.durationSeconds,
  });
}

// Accounts are keyed by normalised email so "A@x.io" and "a@x.io " share one budget.
function accountKey(account: string): string {
  return account.trim().toLowerCase();
}

function tooMany(msBeforeNext: number) {
  const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return AuthErrors.RATE_LIMITED({ meta: { retryAfterSeconds } });
}
