import { BSONRegExp, Double, Int32, Long } from "bson";
import { Context } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { isInt32Number } from "./bson-type.js";
import { isDocument } from "./document-path.js";
import type { Ev, ExprEnv } from "./expression-types.js";
import type { Collation } from "./types.js";

/**
 * How to type a JS number that a mingo operator returns: mingo only has JS numbers, so each
 * delegated operator declares the BSON type MongoDB gives its result.
 * - `"int"`: integral results are Int32 (Long beyond int32), others Double (string lengths, date parts);
 * - `"double"`: always Double (trigonometry, `$median`...);
 * - `"long"`: integral results are Long (`$toHashedIndexKey`).
 */
export type NumberTyping = "int" | "double" | "long";

const DOUBLE_RESULT = new Set([
  "$acos",
  "$acosh",
  "$asin",
  "$asinh",
  "$atan",
  "$atan2",
  "$atanh",
  "$cos",
  "$cosh",
  "$sin",
  "$sinh",
  "$tan",
  "$tanh",
  "$degreesToRadians",
  "$radiansToDegrees",
  "$sigmoid",
  "$median",
  "$percentile",
]);
const LONG_RESULT = new Set(["$toHashedIndexKey"]);

/**
 * Values mingo must not see as numbers: Long beyond 2^53 and Decimal128 cannot become JS numbers
 * without rounding, so they travel through mingo as opaque objects. If a delegated operator returns
 * one untouched it converts back exactly; if it tries arithmetic on one, mingo throws and the user
 * gets a clear error instead of a rounded answer.
 */
class Opaque {
  constructor(readonly value: unknown) {}
  toString(): string {
    return String(this.value);
  }
}

/**
 * Converts a BSON value for mingo: numbers become JS numbers where exact, regexes become RegExp.
 *
 * @example
 * toMingo({ n: new Int32(1) }); // {n: 1}
 */
export function toMingo(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(toMingo);
  const tag = (v as { _bsontype?: unknown })._bsontype;
  switch (tag) {
    case undefined:
      if (isDocument(v)) {
        const o: Record<string, unknown> = {};
        for (const k of Object.keys(v)) o[k] = toMingo(v[k]);
        return o;
      }
      return v;
    case "Int32":
    case "Double":
      return (v as Int32 | Double).value;
    case "Long": {
      const n = (v as Long).toNumber();
      return Number.isSafeInteger(n) ? n : new Opaque(v);
    }
    case "Decimal128":
      return new Opaque(v);
    case "BSONRegExp":
      return new RegExp((v as BSONRegExp).pattern, (v as BSONRegExp).options.replace(/[^imsu]/g, ""));
    case "BSONSymbol":
      return String((v as { value: unknown }).value);
    default:
      return v;
  }
}

/**
 * Converts a mingo result back to BSON: JS numbers get the operator's declared typing, opaque
 * values unwrap to the original, RegExp becomes BSONRegExp.
 *
 * @example
 * fromMingo(3, "int"); // Int32(3)
 */
export function fromMingo(v: unknown, typing: NumberTyping): unknown {
  if (typeof v === "number") {
    if (typing === "double") return new Double(v);
    if (Number.isInteger(v) && !Object.is(v, -0)) {
      if (typing === "int" && isInt32Number(v)) return new Int32(v);
      if (Number.isSafeInteger(v)) return Long.fromNumber(v);
    }
    return new Double(v);
  }
  if (typeof v === "bigint") return Long.fromBigInt(BigInt.asIntN(64, v));
  if (typeof v !== "object" || v === null) return v;
  if (v instanceof Opaque) return v.value;
  if (v instanceof RegExp) return new BSONRegExp(v.source, v.flags.replace(/[gyd]/g, ""));
  if (Array.isArray(v)) return v.map((e) => fromMingo(e, typing));
  if (isDocument(v)) {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) o[k] = fromMingo(v[k], typing);
    return o;
  }
  return v;
}

/** Wraps evaluated arguments so mingo treats them as constants, keeping the argument's shape. */
function literalize(spec: unknown, value: unknown): unknown {
  if (Array.isArray(spec) && Array.isArray(value)) return value.map((v, i) => literalize(spec[i], v));
  if (isDocument(spec) && isDocument(value) && !Object.keys(spec).some((k) => k.startsWith("$"))) {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(value)) o[k] = literalize(spec[k], value[k]);
    return o;
  }
  return { $literal: toMingo(value) };
}

type MingoOperator = (obj: unknown, expr: unknown, options: unknown) => unknown;
const ops = mingoExpressions as unknown as Record<string, MingoOperator | undefined>;

/** mingo's expression operators as an (immutable) operator table, for nested `$literal` lookups. */
const MINGO_CONTEXT: Context = Context.init({
  expression: Object.fromEntries(Object.entries(ops).filter(([name, fn]) => name.startsWith("$") && typeof fn === "function")) as never,
});

/**
 * True when mingo implements an expression operator we can delegate to.
 *
 * @example
 * hasMingoOperator("$substrCP"); // true
 */
export function hasMingoOperator(name: string): boolean {
  return typeof ops[name] === "function";
}

/**
 * Compiles `{name: spec}` as a call into mingo's implementation: arguments are evaluated by our
 * BSON-aware evaluator first, converted to JS values, handed to mingo as literals, and the result is
 * converted back with the operator's declared numeric typing. mingo failures become BadValue (2).
 *
 * @example
 * const ev = compileMingoOperator("$toUpper", "$name", env, undefined);
 */
export function compileMingoOperator(name: string, spec: unknown, env: ExprEnv, collation: Collation | undefined): Ev {
  const fn = ops[name];
  if (fn === undefined) throw new EngineError(ErrorCodes.InvalidPipelineOperator, `Unrecognized expression '${name}'`);
  const args = env.compile(spec);
  const typing: NumberTyping = DOUBLE_RESULT.has(name) ? "double" : LONG_RESULT.has(name) ? "long" : "int";
  const options = {
    idKey: "_id",
    context: MINGO_CONTEXT,
    collation,
    processingMode: 0,
    scriptEnabled: false,
    useStrictMode: true,
    failOnError: true,
  };
  return (c) => {
    const value = args(c);
    const converted = toMingo(value);
    if (containsOpaque(converted)) {
      // mingo would ignore or string-compare these values and return a wrong answer: refuse.
      throw new EngineError(ErrorCodes.BadValue, `${name} cannot operate on Decimal128 values or Long values beyond 2^53 in the embedded engine`);
    }
    let out: unknown;
    try {
      out = fn({}, literalize(spec, value), options);
    } catch (e) {
      if (e instanceof EngineError) throw e;
      throw new EngineError(ErrorCodes.BadValue, `${name}: ${(e as Error).message ?? String(e)}`);
    }
    return fromMingo(out, typing);
  };
}

function containsOpaque(v: unknown): boolean {
  if (v instanceof Opaque) return true;
  if (Array.isArray(v)) return v.some(containsOpaque);
  if (isDocument(v)) return Object.values(v).some(containsOpaque);
  return false;
}
