import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { ThrottleStore } from "../../contracts/throttle-store.js";
import { atMostEvery } from "../../kernel/at-most-every.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { clientAddressKey } from "./client-address.js";
import { parseThrottleRate, type ParsedRate, type ThrottleRate } from "./rate.js";

/** Who a request counts against: a signed-in user by id, anyone else by IP (an IPv6 client by its /56). */
export interface ThrottleCaller {
  readonly user?: { readonly id: string };
  /** The client's IP as express reads it (set `trustProxy` behind a load balancer). */
  readonly ip?: string;
}

/** A budget spent for one request: what to give back when another budget refuses it. */
interface Spent {
  readonly limiter: RateLimiterAbstract;
  readonly key: string;
}

// A store that fails (Redis down) lets requests through: the warning goes out at most once a minute.
const WARN_EVERY_MS = 60_000;

/**
 * One throttle scope's budgets: requests per period for each signed-in user (by id) and for each
 * anonymous client (by IP), counted in the app's `THROTTLE_STORE` (memory unless bound). A
 * request over budget is refused with 429 `HTTP_RATE_LIMITED` and `meta.retryAfterSeconds` (sent
 * as `Retry-After`). A store that fails does not take the routes down with it: the request goes
 * through and the failure is logged.
 *
 * @example
 * const reports = new Throttle("reports", { user: "10/minute", anonymous: "2/minute" }, store, logger);
 * await reports.consume({ user: req.user, ip: req.ip }); // throws HTTP_RATE_LIMITED when spent
 */
export class Throttle {
  private readonly user?: RateLimiterAbstract;
  private readonly anonymous?: RateLimiterAbstract;
  private readonly warn: (error: unknown) => void;

  /** `where` names the setting in start-up errors (an invalid rate); it defaults to `scope`. */
  constructor(
    readonly scope: string,
    rate: ThrottleRate,
    store: ThrottleStore,
    logger: SvcLogger,
    where: string = scope,
  ) {
    const rates = parseThrottleRate(rate, where);
    const limiter = (kind: string, parsed: ParsedRate | undefined) =>
      parsed && store({ keyPrefix: `svc-throttle:${scope}:${kind}`, points: parsed.points, duration: parsed.seconds });
    this.warn = atMostEvery(WARN_EVERY_MS, (error: unknown) =>
      logger.warn(`Throttle ${scope}: its store failed, so requests go through unthrottled: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.user = limiter("user", rates.user);
    this.anonymous = limiter("anonymous", rates.anonymous);
  }

  /** Spends one request of the caller's budget; throws 429 `HTTP_RATE_LIMITED` when it is spent. */
  consume(caller: ThrottleCaller): Promise<void> {
    return Throttle.consumeAll([this], caller);
  }

  /**
   * Spends one request of every throttle's budget for the caller (a router's `all` and the
   * method's own, say). When any is spent, the others get their request back — a refused request
   * costs nothing — and it throws 429 `HTTP_RATE_LIMITED` with the longest wait.
   *
   * @example
   * await Throttle.consumeAll([everything, creates], { user: req.user, ip: req.ip });
   */
  static async consumeAll(throttles: readonly Throttle[], caller: ThrottleCaller): Promise<void> {
    const outcomes = await Promise.all(throttles.map((throttle) => throttle.spend(caller)));
    const refusals = outcomes.filter((outcome): outcome is RateLimiterRes => outcome instanceof RateLimiterRes);
    if (refusals.length === 0) return;
    await Promise.all(
      outcomes.map((outcome) => (outcome && !(outcome instanceof RateLimiterRes) ? outcome.limiter.reward(outcome.key).catch(() => undefined) : undefined)),
    );
    const retryAfterSeconds = Math.max(1, Math.ceil(Math.max(...refusals.map((refusal) => refusal.msBeforeNext)) / 1000));
    throw HttpErrors.RATE_LIMITED({ detail: `Too many requests: try again in ${retryAfterSeconds} s`, meta: { retryAfterSeconds } });
  }

  /** Spends one request; resolves to what was spent, or to the refusal (nothing when unlimited or the store failed). */
  private async spend(caller: ThrottleCaller): Promise<Spent | RateLimiterRes | undefined> {
    const limiter = caller.user ? this.user : this.anonymous;
    if (!limiter) return undefined;
    const key = caller.user ? caller.user.id : clientAddressKey(caller.ip ?? "unknown");
    try {
      await limiter.consume(key);
      return { limiter, key };
    } catch (error) {
      if (error instanceof RateLimiterRes) return error;
      this.warn(error);
      return undefined;
    }
  }
}

