import type { RestMethod } from "../../contracts/model-permissions.js";
import type { ThrottleStore } from "../../contracts/throttle-store.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { parseThrottleRate, Throttle, ThrottleErrors, type ThrottleCaller } from "../throttle/index.js";
import type { ModelThrottle } from "./model-router-options.js";
import { REST_METHODS } from "./permissions.js";

/** Spends one request of a router's budgets for `method`; throws 429 `HTTP_RATE_LIMITED` when one is spent. */
export type RouterThrottle = (method: RestMethod, caller: ThrottleCaller) => Promise<void>;

const KEYS: ReadonlySet<string> = new Set([...REST_METHODS, "all"]);

/**
 * Checks a router's `throttle` option where the router is built, so a typo fails there:
 * unknown keys and malformed rates throw `THROTTLE_INVALID_RATE` naming the router.
 *
 * @example
 * checkThrottleOption({ create: "30/minute" }, "Todo (/todos)");
 */
export function checkThrottleOption(option: ModelThrottle | undefined, where: string): void {
  if (option === undefined) return;
  if (typeof option !== "object" || option === null || Array.isArray(option)) throw ThrottleErrors.INVALID_RATE(`${where}: throttle`, option);
  for (const [key, rate] of Object.entries(option)) {
    if (!KEYS.has(key)) throw ThrottleErrors.INVALID_RATE(`${where}: throttle.${key} (not a method: use list, create, read, update, delete or all)`, rate);
    if (rate !== undefined) parseThrottleRate(rate, `${where}: throttle.${key}`);
  }
}

/**
 * A router's throttle: for each method, its own budget and `all`'s, spent together (a refusal by
 * either gives the other's request back). Undefined when the router has no `throttle`, so
 * unthrottled routers pay nothing.
 *
 * @example
 * const throttle = routerThrottle("model:todos", { create: "30/minute" }, store, logger, "Todo (/todos)");
 * await throttle?.("create", req);
 */
export function routerThrottle(scope: string, option: ModelThrottle | undefined, store: ThrottleStore, logger: SvcLogger, where: string): RouterThrottle | undefined {
  if (!option || Object.values(option).every((rate) => rate === undefined)) return undefined;
  const budget = (key: string) => {
    const rate = option[key as RestMethod | "all"];
    return rate === undefined ? undefined : new Throttle(`${scope}:${key}`, rate, store, logger, `${where}: throttle.${key}`);
  };
  const all = budget("all");
  const byMethod = new Map<RestMethod, readonly Throttle[]>();
  for (const method of REST_METHODS) {
    const throttles = [all, budget(method)].filter((throttle): throttle is Throttle => throttle !== undefined);
    if (throttles.length > 0) byMethod.set(method, throttles);
  }
  // A method without a budget of its own or `all` spends nothing.
  return (method, caller) => {
    const throttles = byMethod.get(method);
    return throttles ? Throttle.consumeAll(throttles, caller) : Promise.resolve();
  };
}
