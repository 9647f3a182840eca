import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { ThrottleStore } from "../../../contracts/throttle-store.js";
import { clientAddressKey, memoryThrottleStore } from "../../throttle/index.js";
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
  /** Password-reset mails asked for per account (email), so nobody floods an inbox. Default 5 per hour. */
  resetPerAccount?: FailureLimit;
  /** Password-reset mails asked for per client IP, whatever the account. Default 30 per hour. */
  resetPerIp?: FailureLimit;
  /** Verification mails asked for again, and email-change links, per account (`POST /auth/verify_email/resend`, `POST /auth/change_email`). Default 5 per hour. */
  verifyPerAccount?: FailureLimit;
}

/**
 * Counters behind the limits, one by one. Each limit left out counts in the app's
 * `THROTTLE_STORE` (memory per process unless bound; Redis with `CACHE_URL`); pass
 * rate-limiter-flexible limiters here to count one limit elsewhere.
 */
export interface LoginRateLimiterStores {
  perAccount?: RateLimiterAbstract;
  perIp?: RateLimiterAbstract;
  signupPerIp?: RateLimiterAbstract;
  resetPerAccount?: RateLimiterAbstract;
  resetPerIp?: RateLimiterAbstract;
  verifyPerAccount?: RateLimiterAbstract;
}

/**
 * Failed-login throttling per account and per IP. Each attempt spends a point of both budgets
 * *before* the password is verified, so a burst of parallel guesses cannot all pass a check made
 * before any of them failed; a blocked key is refused even with the right password (the limiter
 * is not an oracle). Addresses count as `clientAddressKey` says: an IPv6 client by its /56. A
 * success gives the points back: the account's counter is cleared and the IP's point returned;
 * a wrong password keeps them. Over the limit → 429 `AUTH_RATE_LIMITED` with
 * `meta.retryAfterSeconds`, which the error handler sends as `Retry-After`.
 *
 * @example
 * const limiter = new LoginRateLimiter();
 * await limiter.consumeLoginAttempt(email, req.ip); // 429 when over budget
 * if (ok) await limiter.recordSuccess(email, req.ip); // a wrong password keeps the points spent
 */
export class LoginRateLimiter {
  private readonly perAccount: RateLimiterAbstract;
  private readonly perIp: RateLimiterAbstract;
  private readonly signupPerIp: RateLimiterAbstract;
  private readonly resetPerAccount: RateLimiterAbstract;
  private readonly resetPerIp: RateLimiterAbstract;
  private readonly verifyPerAccount: RateLimiterAbstract;

  /** `store` makes the counters of the limits `stores` leaves out (the app's `THROTTLE_STORE`). */
  constructor(limits: LoginRateLimits = {}, stores: LoginRateLimiterStores = {}, store: ThrottleStore = memoryThrottleStore) {
    const counter = (keyPrefix: string, limit: FailureLimit) =>
      store({ keyPrefix: `svc-auth:${keyPrefix}`, points: limit.points, duration: limit.durationSeconds, blockDuration: limit.blockSeconds ?? limit.durationSeconds });
    this.perAccount = stores.perAccount ?? counter("login-account", limits.perAccount ?? { points: 10, durationSeconds: 15 * 60 });
    this.perIp = stores.perIp ?? counter("login-ip", limits.perIp ?? { points: 50, durationSeconds: 15 * 60 });
    this.signupPerIp = stores.signupPerIp ?? counter("signup-ip", limits.signupPerIp ?? { points: 30, durationSeconds: 3600 });
    this.resetPerAccount = stores.resetPerAccount ?? counter("reset-account", limits.resetPerAccount ?? { points: 5, durationSeconds: 3600 });
    this.resetPerIp = stores.resetPerIp ?? counter("reset-ip", limits.resetPerIp ?? { points: 30, durationSeconds: 3600 });
    this.verifyPerAccount = stores.verifyPerAccount ?? counter("verify-account", limits.verifyPerAccount ?? { points: 5, durationSeconds: 3600 });
  }

  /** Spends one attempt of the account's and the IP's budgets; throws 429 when either is spent. */
  async consumeLoginAttempt(account: string, ip: string): Promise<void> {
    await consumeBoth(this.perAccount, accountKey(account), this.perIp, clientAddressKey(ip));
  }

  /** Counts a password-reset request of the account's and the IP's budgets; throws 429 when either is spent. */
  async consumeResetRequest(account: string, ip: string): Promise<void> {
    await consumeBoth(this.resetPerAccount, accountKey(account), this.resetPerIp, clientAddressKey(ip));
  }

  /** The right password: clears the account's failures and returns the IP's point (its failures stay: it may be spraying). */
  async recordSuccess(account: string, ip: string): Promise<void> {
    await Promise.all([this.perAccount.delete(accountKey(account)), this.perIp.reward(clientAddressKey(ip))]);
  }

  /** Counts a request for another verification or email-change mail (keyed by user id and IP, the IP on the reset budget); throws 429 when spent. */
  async consumeVerificationRequest(userId: string, ip: string): Promise<void> {
    await consumeBoth(this.verifyPerAccount, userId, this.resetPerIp, clientAddressKey(ip));
  }

  /** Clears the account's failed logins (its password was just reset by mail: the owner is back). */
  async forgiveAccount(account: string): Promise<void> {
    await this.perAccount.delete(accountKey(account));
  }

  /** An attempt that ended without a verdict on the password (e.g. the provider failed): both points are returned. */
  async releaseLoginAttempt(account: string, ip: string): Promise<void> {
    await Promise.all([this.perAccount.reward(accountKey(account)), this.perIp.reward(clientAddressKey(ip))]);
  }

  /** Counts a sign-up; throws 429 when the IP is over its budget. */
  async consumeSignup(ip: string): Promise<void> {
    try {
      await this.signupPerIp.consume(clientAddressKey(ip));
    } catch (error) {
      if (error instanceof RateLimiterRes) throw tooMany(error.msBeforeNext);
      throw error;
    }
  }
}

/** Spends a point of both budgets; when either is spent, gives back the other's and throws 429. */
async function consumeBoth(byAccountLimiter: RateLimiterAbstract, key: string, byIpLimiter: RateLimiterAbstract, ip: string): Promise<void> {
  const [byAccount, byIp] = await Promise.allSettled([byAccountLimiter.consume(key), byIpLimiter.consume(ip)]);
  const refused: RateLimiterRes[] = [];
  for (const result of [byAccount, byIp]) {
    if (result.status === "fulfilled") continue;
    if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
    refused.push(result.reason);
  }
  if (refused.length === 0) return;
  // A refused attempt verifies nothing, so it costs nothing of a budget that still had room.
  if (byAccount.status === "fulfilled") await byAccountLimiter.reward(key);
  if (byIp.status === "fulfilled") await byIpLimiter.reward(ip);
  throw tooMany(Math.max(...refused.map((state) => state.msBeforeNext)));
}

// Accounts are keyed by normalised email so "A@x.io" and "a@x.io " share one budget.
function accountKey(account: string): string {
  return account.trim().toLowerCase();
}

function tooMany(msBeforeNext: number) {
  const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return AuthErrors.RATE_LIMITED({ meta: { retryAfterSeconds } });
}
