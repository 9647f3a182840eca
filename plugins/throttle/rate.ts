import { ThrottleErrors } from "./errors.js";

/**
 * A request rate: `"<count>/<period>"`, the period a unit with an optional multiple —
 * `"30/minute"`, `"100/15m"`, `"5/10s"`, `"1000/day"`.
 */
export type Rate = `${number}/${string}`;

/**
 * A rate for signed-in and anonymous callers alike (each user counted by id, each anonymous
 * client by IP), or one per kind of caller. A kind left out of the object form is not limited.
 */
export type ThrottleRate = Rate | { readonly user?: Rate; readonly anonymous?: Rate };

/** A parsed rate: `points` requests per `seconds`. */
export interface ParsedRate {
  readonly points: number;
  readonly seconds: number;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, sec: 1, second: 1, m: 60, min: 60, minute: 60, h: 3600, hour: 3600, d: 86_400, day: 86_400 };
const RATE = /^\s*(\d+)\s*\/\s*(\d*)\s*([a-z]+)\s*$/i;

/**
 * Reads a rate; throws `THROTTLE_INVALID_RATE` naming `where` when it is not one, so a typo fails
 * the app's start rather than leaving a route unthrottled.
 *
 * @example
 * parseRate("100/15m", "reports"); // { points: 100, seconds: 900 }
 * parseRate("30/minute", "reports"); // { points: 30, seconds: 60 }
 */
export function parseRate(rate: unknown, where: string): ParsedRate {
  const match = typeof rate === "string" ? RATE.exec(rate) : null;
  const unit = match ? unitSeconds(match[3]!.toLowerCase()) : undefined;
  const points = match ? Number(match[1]) : 0;
  const multiple = match?.[2] ? Number(match[2]) : 1;
  if (unit === undefined || !Number.isSafeInteger(points) || points < 1 || !Number.isSafeInteger(multiple) || multiple < 1) {
    throw ThrottleErrors.INVALID_RATE(where, rate);
  }
  return { points, seconds: unit * multiple };
}

/** Both kinds of caller's rates of a `ThrottleRate`, parsed; a kind without one is undefined. */
export function parseThrottleRate(rate: ThrottleRate, where: string): { readonly user?: ParsedRate; readonly anonymous?: ParsedRate } {
  if (typeof rate !== "object" || rate === null) {
    const parsed = parseRate(rate, where);
    return { user: parsed, anonymous: parsed };
  }
  const unknown = Object.keys(rate).filter((key) => key !== "user" && key !== "anonymous");
  if (unknown.length > 0) throw ThrottleErrors.INVALID_RATE(where, rate);
  return {
    user: rate.user === undefined ? undefined : parseRate(rate.user, `${where}.user`),
    anonymous: rate.anonymous === undefined ? undefined : parseRate(rate.anonymous, `${where}.anonymous`),
  };
}

// Plurals of the long forms only: "ms" must not read as minutes.
function unitSeconds(word: string): number | undefined {
  return UNIT_SECONDS[word] ?? (word.length > 3 && word.endsWith("s") ? UNIT_SECONDS[word.slice(0, -1)] : undefined);
}
