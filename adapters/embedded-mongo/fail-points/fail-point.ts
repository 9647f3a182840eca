import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";

/** How a fail point decides to fire, as `configureFailPoint`'s `mode` sets it. */
export type FailPointMode =
  | { readonly kind: "off" }
  | { readonly kind: "alwaysOn" }
  | { readonly kind: "times"; readonly n: number }
  | { readonly kind: "skip"; readonly n: number }
  | { readonly kind: "activationProbability"; readonly p: number };

const MAX_COUNT = 2 ** 31 - 1;

/**
 * One named fail point with mongod's semantics: a predicate on its `data` is checked first (a
 * command the data does not select never consumes a `times`/`skip` count), then the mode decides.
 * `{times: n}` fires n times (mongod fires `{times: 0}` once too) and then turns itself off;
 * `{skip: n}` lets n selected calls through and fires on every later one.
 *
 * @example
 * const point = new FailPoint();
 * point.configure({mode: {times: 1}, data: {errorCode: 91}});
 * point.evaluate(() => true); // the data, once; then undefined
 */
export class FailPoint {
  private mode: FailPointMode = { kind: "off" };
  private counter = 0;
  private payload: Document = {};
  private entered = 0;

  /** Whether the point can fire at all (the dispatcher's cheap check). */
  get active(): boolean {
    return this.mode.kind !== "off";
  }

  /** How many times it fired since the engine started (`configureFailPoint`'s `count`). */
  get timesEntered(): number {
    return this.entered;
  }

  get data(): Document {
    return this.payload;
  }

  /** Applies a `configureFailPoint` command's `mode` and `data`; returns the count before. */
  configure(command: Document): number {
    const mode = parseMode(command["mode"]);
    const data = command["data"];
    if (data !== undefined && !isPlainDocument(data)) {
      throw new EngineError(ErrorCodes.TypeMismatch, "the 'data' option must be a JSON object");
    }
    const before = this.entered;
    this.mode = mode;
    this.counter = mode.kind === "times" || mode.kind === "skip" ? mode.n : 0;
    this.payload = data ?? {};
    return before;
  }

  /** The point's data when it fires for a call `selects` accepts, else undefined. */
  evaluate(selects: (data: Document) => boolean): Document | undefined {
    if (this.mode.kind === "off" || !selects(this.payload)) return undefined;
    if (!this.fires()) return undefined;
    this.entered += 1;
    return this.payload;
  }

  private fires(): boolean {
    switch (this.mode.kind) {
      case "off":
        return false;
      case "alwaysOn":
        return true;
      case "times":
        this.counter -= 1;
        if (this.counter <= 0) this.mode = { kind: "off" };
        return true;
      case "skip":
        if (this.counter <= 0) return true;
        this.counter -= 1;
        return false;
      case "activationProbability":
        return Math.random() < this.mode.p;
    }
  }
}

/** mongod's `FailPoint::parseBSON` rules for `mode`, with its error codes. */
function parseMode(mode: unknown): FailPointMode {
  if (mode === undefined) throw new EngineError(ErrorCodes.IllegalOperation, "When setting a failpoint, you must supply a 'mode'");
  if (typeof mode === "string") {
    if (mode === "off" || mode === "alwaysOn") return { kind: mode };
    throw new EngineError(ErrorCodes.BadValue, `unknown mode: ${mode}`);
  }
  if (!isPlainDocument(mode)) throw new EngineError(ErrorCodes.TypeMismatch, "'mode' must be a string or JSON object");
  for (const kind of ["times", "skip"] as const) {
    if (!(kind in mode)) continue;
    const n = optionNumber(mode[kind]);
    if (n === undefined || !Number.isInteger(n)) {
      throw new EngineError(ErrorCodes.TypeMismatch, `'${kind}' option to 'mode' must be an integer`);
    }
    if (n < 0) throw new EngineError(ErrorCodes.BadValue, `'${kind}' option to 'mode' must be positive`);
    if (n > MAX_COUNT) throw new EngineError(ErrorCodes.BadValue, `'${kind}' option to 'mode' is too large`);
    return { kind, n };
  }
  if ("activationProbability" in mode) {
    const p = optionNumber(mode["activationProbability"]);
    if (p === undefined) {
      throw new EngineError(ErrorCodes.TypeMismatch, "the 'activationProbability' option to 'mode' must be a double between 0 and 1");
    }
    if (!(p >= 0 && p <= 1)) throw new EngineError(ErrorCodes.BadValue, `activationProbability must be between 0.0 and 1.0; found ${p}`);
    return { kind: "activationProbability", p };
  }
  throw new EngineError(ErrorCodes.BadValue, "'mode' must be one of 'off', 'alwaysOn', '{times:n}', '{skip:n}' or '{activationProbability:p}'");
}

export function isPlainDocument(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
