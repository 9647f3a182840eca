import { Int32 } from "bson";
import type { Code, Decimal128, Long, Timestamp } from "bson";
import { EngineError } from "../engine-error.js";
import { compareStringsBinary } from "./bson-order.js";
import { bsonTypeCode, bsonTypeName } from "./bson-type.js";
import type { Ev, ExprEnv, OperatorCompiler } from "./expression-types.js";
import { toDouble } from "./numeric.js";

/** The operator's arguments, which must number exactly `n` (16020, as mongod words it). */
function args(name: string, spec: unknown, env: ExprEnv, n: number): Ev[] {
  const evs = Array.isArray(spec) ? spec.map((s) => env.compile(s)) : [env.compile(spec)];
  if (evs.length !== n) {
    throw new EngineError(16020, `Expression ${name} takes exactly ${n} arguments. ${evs.length} were passed in.`);
  }
  return evs;
}

/**
 * A value as mongod's `coerceToString` renders it for `$strcasecmp`: null and missing are "",
 * numbers in C's `%g` form for doubles, dates in ISO-8601 UTC; arrays, documents and the other
 * types cannot be converted (16007).
 */
function coerceToString(v: unknown): string {
  switch (bsonTypeCode(v)) {
    case 0:
    case 6:
    case 10:
      return "";
    case 2:
      return v as string;
    case 13:
      return (v as Code).code;
    case 14:
      return String((v as { value: unknown }).value);
    case 1:
      return formatDoubleG(toDouble(v));
    case 16:
    case 18:
    case 19:
      return String(typeof v === "number" || typeof v === "bigint" ? v : (v as Int32 | Long | Decimal128).toString());
    case 9:
      return (v as Date).toISOString();
    case 17: {
      const ts = v as Timestamp;
      return `${new Date(ts.t * 1000).toISOString().slice(0, 19)}:${ts.i}`;
    }
    default:
      throw new EngineError(16007, `can't convert from BSON type ${bsonTypeName(v)} to String`);
  }
}

/** C's `printf("%g")`: six significant digits, trailing zeros dropped, exponent form outside 1e-4..1e6. */
function formatDoubleG(d: number): string {
  if (Number.isNaN(d)) return "nan";
  if (!Number.isFinite(d)) return d > 0 ? "inf" : "-inf";
  if (d === 0) return Object.is(d, -0) ? "-0" : "0";
  const [mantissa, exponent] = d.toExponential(5).split("e") as [string, string];
  const exp = Number(exponent);
  const trim = (s: string) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  if (exp < -4 || exp >= 6) return `${trim(mantissa)}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return trim(d.toFixed(5 - exp));
}

/** `$strcasecmp`: both arguments converted to strings, ASCII letters upper-cased, then compared bytewise. */
function compileStrcasecmp(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a, b] = args(name, spec, env, 2) as [Ev, Ev];
  const upper = (s: string) => s.replace(/[a-z]+/g, (m) => m.toUpperCase());
  return (c) => new Int32(compareStringsBinary(upper(coerceToString(a(c))), upper(coerceToString(b(c)))));
}

/** `$split`: null if either argument is null or missing; both must be strings and the separator non-empty. */
function compileSplit(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a, b] = args(name, spec, env, 2) as [Ev, Ev];
  return (c) => {
    const input = a(c);
    const separator = b(c);
    if (input === null || input === undefined || separator === null || separator === undefined) return null;
    if (typeof input !== "string") {
      throw new EngineError(40085, `$split requires an expression that evaluates to a string as a first argument, found: ${bsonTypeName(input)}`);
    }
    if (typeof separator !== "string") {
      throw new EngineError(40086, `$split requires an expression that evaluates to a string as a second argument, found: ${bsonTypeName(separator)}`);
    }
    if (separator === "") throw new EngineError(40087, "$split requires a non-empty separator");
    return input.split(separator);
  };
}

/** `$strLenCP` / `$strLenBytes`: an Int32 count of code points or UTF-8 bytes; anything but a string fails. */
function compileStrLen(unit: "CP" | "Bytes", code: number): OperatorCompiler {
  return (spec, env, name) => {
    const [a] = args(name, spec, env, 1) as [Ev];
    return (c) => {
      const s = a(c);
      if (typeof s !== "string") throw new EngineError(code, `${name} requires a string argument, found: ${bsonTypeName(s)}`);
      let n = 0;
      if (unit === "Bytes") n = Buffer.byteLength(s, "utf8");
      else for (const _ of s) n += 1;
      return new Int32(n);
    };
  };
}

/**
 * String expression operators implemented natively where mingo's answer differs from MongoDB's.
 * Operators not listed here still go to mingo (docs/decisions.md, "What still falls back to mingo").
 *
 * @example
 * NATIVE_OPERATORS.$strcasecmp === STRING_OPERATORS.$strcasecmp;
 */
export const STRING_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  $strcasecmp: compileStrcasecmp,
  $split: compileSplit,
  $strLenCP: compileStrLen("CP", 34471),
  $strLenBytes: compileStrLen("Bytes", 34473),
};
