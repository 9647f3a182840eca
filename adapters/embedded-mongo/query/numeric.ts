import { Decimal128, Double, Int32, Long } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { isInt32Number } from "./bson-type.js";

/**
 * MongoDB's numeric types, narrowest first. Arithmetic result types follow the widest operand
 * (`int < long < double < decimal`), with int overflow promoted to long.
 *
 * @example
 * numericKind(new Int32(1)); // "int"
 */
export type NumericKind = "int" | "long" | "double" | "decimal";

/** A numeric value as stored in documents: a BSON wrapper or a plain JS number / bigint. */
export type BsonNumber = Int32 | Double | Long | Decimal128 | number | bigint;

const KIND_RANK: Record<NumericKind, number> = { int: 0, long: 1, double: 2, decimal: 3 };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_53 = 2 ** 53;

/**
 * The numeric kind of a value, or `undefined` for non-numbers. JS integers in the int32 range are
 * "int", other JS numbers "double", bigints "long".
 *
 * @example
 * numericKind(1.5);  // "double"
 * numericKind("1");  // undefined
 */
export function numericKind(v: unknown): NumericKind | undefined {
  switch (typeof v) {
    case "number":
      return isInt32Number(v) ? "int" : "double";
    case "bigint":
      return "long";
    case "object": {
      if (v === null) return undefined;
      switch ((v as { _bsontype?: unknown })._bsontype) {
        case "Int32":
          return "int";
        case "Double":
          return "double";
        case "Long":
          return "long";
        case "Decimal128":
          return "decimal";
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

/**
 * The value as a JS double (Long and Decimal128 are rounded, as MongoDB does when it coerces to
 * double). Non-numbers give NaN.
 *
 * @example
 * toDouble(Long.fromString("3")); // 3
 */
export function toDouble(v: unknown): number {
  switch (typeof v) {
    case "number":
      return v;
    case "bigint":
      return Number(v);
    case "object": {
      if (v === null) return NaN;
      switch ((v as { _bsontype?: unknown })._bsontype) {
        case "Int32":
        case "Double":
          return (v as Int32 | Double).value;
        case "Long":
          return (v as Long).toNumber();
        case "Decimal128":
          return decimalToDouble(v as Decimal128);
        default:
          return NaN;
      }
    }
    default:
      return NaN;
  }
}

/**
 * The value as an exact 64-bit integer when it is integral and fits in int64, else `undefined`.
 * Used by `$bit`, `$mod` and the bit-test query operators.
 *
 * @example
 * toInt64(new Double(4)); // 4n
 * toInt64(4.5);           // undefined
 */
export function toInt64(v: unknown): bigint | undefined {
  const kind = numericKind(v);
  if (kind === undefined) return undefined;
  if (kind === "long") return typeof v === "bigint" ? v : (v as Long).toBigInt();
  if (kind === "decimal") {
    const p = decimalParts(v as Decimal128);
    if (p.special !== undefined) return undefined;
    const r = decToRational(p);
    if (r.num % r.den !== 0n) return undefined;
    const n = r.num / r.den;
    return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
  }
  const d = toDouble(v);
  if (!Number.isInteger(d)) return undefined;
  const n = BigInt(d);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

// ---------------------------------------------------------------------------------------------
// Decimal128 as exact (sign, coefficient, exponent) triples.

/** Exact decimal value `(-1)^neg * coef * 10^exp`, or a special value. */
export interface DecimalParts {
  readonly neg: boolean;
  readonly coef: bigint;
  readonly exp: number;
  readonly special?: "NaN" | "Infinity";
}

const partsCache = new WeakMap<object, DecimalParts>();

/**
 * Parses a Decimal128 into its exact parts (cached per instance: Decimal128 is immutable).
 *
 * @example
 * decimalParts(Decimal128.fromString("-1.50")); // {neg: true, coef: 150n, exp: -2}
 */
export function decimalParts(d: Decimal128): DecimalParts {
  let p = partsCache.get(d);
  if (p === undefined) {
    p = parseDecimalString(d.toString());
    partsCache.set(d, p);
  }
  return p;
}

function parseDecimalString(s: string): DecimalParts {
  let neg = false;
  let i = 0;
  if (s[0] === "-") {
    neg = true;
    i = 1;
  } else if (s[0] === "+") i = 1;
  const body = s.slice(i);
  if (body === "NaN") return { neg: false, coef: 0n, exp: 0, special: "NaN" };
  if (body === "Infinity" || body === "Inf") return { neg, coef: 0n, exp: 0, special: "Infinity" };
  let mant = body;
  let exp = 0;
  const e = body.search(/[eE]/);
  if (e >= 0) {
    mant = body.slice(0, e);
    exp = Number(body.slice(e + 1));
  }
  const dot = mant.indexOf(".");
  if (dot >= 0) {
    exp -= mant.length - dot - 1;
    mant = mant.slice(0, dot) + mant.slice(dot + 1);
  }
  return { neg, coef: BigInt(mant), exp };
}

function decimalToDouble(d: Decimal128): number {
  const p = decimalParts(d);
  if (p.special === "NaN") return NaN;
  if (p.special === "Infinity") return p.neg ? -Infinity : Infinity;
  // Number() of the canonical string rounds correctly (it is a decimal literal).
  return Number(d.toString());
}

interface Rational {
  num: bigint;
  den: bigint; // always > 0
}

function decToRational(p: DecimalParts): Rational {
  const signed = p.neg ? -p.coef : p.coef;
  if (p.exp >= 0) return { num: signed * 10n ** BigInt(p.exp), den: 1n };
  return { num: signed, den: 10n ** BigInt(-p.exp) };
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
// Little-endian hosts store the high word second; Node only runs on little-endian platforms we care
// about, but check once instead of assuming.
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

/** Exact rational value of a finite double. */
function doubleToRational(d: number): Rational {
  if (Number.isInteger(d) && Math.abs(d) <= TWO_53) return { num: BigInt(d), den: 1n };
  f64[0] = d;
  const hi = u32[HI]!;
  const lo = u32[LO]!;
  const neg = hi >>> 31 === 1;
  const biasedExp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (biasedExp === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = biasedExp - 1075;
  }
  const signed = neg ? -mant : mant;
  if (e >= 0) return { num: signed << BigInt(e), den: 1n };
  return { num: signed, den: 1n << BigInt(-e) };
}

function cmpRational(a: Rational, b: Rational): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Exact comparison across numeric types.

/** Ordering class of a numeric: NaN, -Inf, finite, +Inf. */
const NAN = 0;
const NEG_INF = 1;
const FINITE = 2;
const POS_INF = 3;

/**
 * Compares two numeric values exactly (Long beyond 2^53 and Decimal128 without float rounding).
 * NaN sorts below every other number and equals NaN, as in MongoDB's sort order. Returns -1, 0 or 1.
 *
 * @example
 * compareNumbers(Long.fromString("9007199254740993"), 9007199254740992); // 1
 * compareNumbers(Decimal128.fromString("1.0"), new Int32(1));            // 0
 */
export function compareNumbers(a: unknown, b: unknown): number {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if ((ka === "int" || ka === "double") && (kb === "int" || kb === "double")) {
    return cmpDoubles(toDouble(a), toDouble(b));
  }
  if (ka === "long" && kb === "long") {
    const x = longToBigInt(a);
    const y = longToBigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const ca = numClass(a, ka);
  const cb = numClass(b, kb);
  if (ca !== FINITE || cb !== FINITE) return ca < cb ? -1 : ca > cb ? 1 : 0;
  return cmpRational(exactRational(a, ka), exactRational(b, kb));
}

function cmpDoubles(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  // At least one NaN: NaN is the lowest number and equal to itself.
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  return xn && yn ? 0 : xn ? -1 : 1;
}

function longToBigInt(v: unknown): bigint {
  return typeof v === "bigint" ? v : (v as Long).toBigInt();
}

function numClass(v: unknown, k: NumericKind | undefined): number {
  if (k === "decimal") {
    const p = decimalParts(v as Decimal128);
    if (p.special === "NaN") return NAN;
    if (p.special === "Infinity") return p.neg ? NEG_INF : POS_INF;
    return FINITE;
  }
  if (k === "long") return FINITE;
  const d = toDouble(v);
  if (Number.isNaN(d)) return NAN;
  if (d === Infinity) return POS_INF;
  if (d === -Infinity) return NEG_INF;
  return FINITE;
}

function exactRational(v: unknown, k: NumericKind | undefined): Rational {
  if (k === "long") return { num: longToBigInt(v), den: 1n };
  if (k === "decimal") return decToRational(decimalParts(v as Decimal128));
  return doubleToRational(toDouble(v));
}

/**
 * A canonical string for a numeric value such that numerically equal values (any type) give the
 * same string and unequal values never do. Integral values use their exact integer digits; other
 * doubles use `String(d)`; decimals that are not exactly a double use their reduced decimal form.
 *
 * @example
 * numericKey(new Int32(1)) === numericKey(Decimal128.fromString("1.00")); // true
 */
export function numericKey(v: unknown): string {
  const k = numericKind(v);
  if (k === "int") return String(toDouble(v));
  if (k === "double") {
    const d = toDouble(v);
    if (Number.isInteger(d)) return Math.abs(d) <= TWO_53 ? String(d === 0 ? 0 : d) : BigInt(d).toString();
    return String(d); // NaN, Infinity, -Infinity or a non-integral finite double (contains "." or "e")
  }
  if (k === "long") return longToBigInt(v).toString();
  const p = decimalParts(v as Decimal128);
  if (p.special === "NaN") return "NaN";
  if (p.special === "Infinity") return p.neg ? "-Infinity" : "Infinity";
  const r = decToRational(p);
  if (r.num % r.den === 0n) return (r.num / r.den).toString();
  // A non-integral decimal equal to some double must share that double's key.
  const d = Number(`${p.neg ? "-" : ""}${p.coef}e${p.exp}`);
  if (Number.isFinite(d) && cmpRational(doubleToRational(d), r) === 0) return String(d);
  let coef = p.coef;
  let exp = p.exp;
  while (coef % 10n === 0n) {
    coef /= 10n;
    exp += 1;
  }
  return `D${p.neg ? "-" : ""}${coef}e${exp}`;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic with MongoDB's type promotion.

/**
 * What to do when a Long result overflows int64: aggregation (`$add`, `$sum`) falls back to Double,
 * update operators (`$inc`, `$mul`) refuse.
 */
export type LongOverflow = "double" | "error";

/**
 * Thrown (as BadValue) by `add`/`multiply` in "error" mode when a Long result overflows.
 *
 * @example
 * add(Long.fromString("9223372036854775807"), 1, "error"); // throws NumericOverflowError
 */
export class NumericOverflowError extends EngineError {
  constructor(op: string) {
    super(ErrorCodes.BadValue, `${op} overflowed: result does not fit in a 64-bit integer`);
  }
}

function widest(a: NumericKind, b: NumericKind): NumericKind {
  return KIND_RANK[a] >= KIND_RANK[b] ? a : b;
}

function requireKind(v: unknown, op: string): NumericKind {
  const k = numericKind(v);
  if (k === undefined) throw new EngineError(ErrorCodes.TypeMismatch, `${op} requires numeric operands`);
  return k;
}

function fromInt64(n: bigint, overflow: LongOverflow, op: string, asDouble: () => number): Long | Double {
  if (n < INT64_MIN || n > INT64_MAX) {
    if (overflow === "error") throw new NumericOverflowError(op);
    return new Double(asDouble());
  }
  return Long.fromBigInt(n);
}

/**
 * Adds two numbers with MongoDB's promotion rules: int+int stays Int32 unless it overflows (then
 * Long); Long overflow becomes Double (`"double"`, aggregation) or throws (`"error"`, `$inc`);
 * any Double makes a Double; any Decimal128 makes an exact Decimal128 (doubles are first rounded to
 * 15 significant digits, as the server's double→decimal conversion does).
 *
 * @example
 * add(new Int32(2147483647), new Int32(1)); // Long(2147483648)
 * add(new Int32(1), new Double(0.5));       // Double(1.5)
 */
export function add(a: unknown, b: unknown, overflow: LongOverflow = "double"): Int32 | Long | Double | Decimal128 {
  const ka = requireKind(a, "$add");
  const kb = requireKind(b, "$add");
  switch (widest(ka, kb)) {
    case "int": {
      const r = toDouble(a) + toDouble(b);
      return isInt32Number(r) || r === 0 ? new Int32(r) : Long.fromNumber(r);
    }
    case "long":
      return fromInt64(toBig(a, ka) + toBig(b, kb), overflow, "$add", () => toDouble(a) + toDouble(b));
    case "double":
      return new Double(toDouble(a) + toDouble(b));
    case "decimal":
      return decimalFromParts(decAdd(toDecParts(a, ka), toDecParts(b, kb)));
  }
}

/**
 * `a - b` with the same promotion rules as {@link add}.
 *
 * @example
 * subtract(new Int32(5), new Int32(7)); // Int32(-2)
 */
export function subtract(a: unknown, b: unknown, overflow: LongOverflow = "double"): Int32 | Long | Double | Decimal128 {
  return add(a, negate(b), overflow);
}

/**
 * Negates a numeric value, keeping its type (Int32 min negates to Long, Long min to Double).
 *
 * @example
 * negate(new Int32(3)); // Int32(-3)
 */
export function negate(v: unknown): Int32 | Long | Double | Decimal128 {
  const k = requireKind(v, "negate");
  switch (k) {
    case "int": {
      const n = -toDouble(v);
      return isInt32Number(n) || n === 0 ? new Int32(n) : Long.fromNumber(n);
    }
    case "long": {
      const n = -toBig(v, k);
      return n > INT64_MAX ? new Double(Number(n)) : Long.fromBigInt(n);
    }
    case "double":
      return new Double(-toDouble(v));
    case "decimal": {
      const p = decimalParts(v as Decimal128);
      return decimalFromParts({ ...p, neg: p.special === "NaN" ? false : !p.neg });
    }
  }
}

/**
 * Multiplies with MongoDB's promotion rules (see {@link add}); int*int overflowing int32 becomes
 * Long, computed exactly.
 *
 * @example
 * multiply(new Int32(65536), new Int32(65536)); // Long(4294967296)
 */
export function multiply(a: unknown, b: unknown, overflow: LongOverflow = "double"): Int32 | Long | Double | Decimal128 {
  const ka = requireKind(a, "$multiply");
  const kb = requireKind(b, "$multiply");
  switch (widest(ka, kb)) {
    case "int": {
      const r = toDouble(a) * toDouble(b);
      if (isInt32Number(r) || r === 0) return new Int32(r === 0 ? 0 : r);
      return Long.fromBigInt(BigInt(toDouble(a)) * BigInt(toDouble(b)));
    }
    case "long":
      return fromInt64(toBig(a, ka) * toBig(b, kb), overflow, "$multiply", () => toDouble(a) * toDouble(b));
    case "double":
      return new Double(toDouble(a) * toDouble(b));
    case "decimal":
      return decimalFromParts(decMul(toDecParts(a, ka), toDecParts(b, kb)));
  }
}

/**
 * Divides as `$divide` does: a Double unless an operand is Decimal128 (then an exact-as-possible
 * Decimal128 rounded to 34 digits). Division by zero throws code 2 ("can't $divide by zero").
 *
 * @example
 * divide(new Int32(1), new Int32(4)); // Double(0.25)
 */
export function divide(a: unknown, b: unknown): Double | Decimal128 {
  const ka = requireKind(a, "$divide");
  const kb = requireKind(b, "$divide");
  if (ka === "decimal" || kb === "decimal") {
    const pb = toDecParts(b, kb);
    if (pb.special === undefined && pb.coef === 0n) throw new EngineError(ErrorCodes.BadValue, "can't $divide by zero");
    return decimalFromParts(decDiv(toDecParts(a, ka), pb));
  }
  const d = toDouble(b);
  if (d === 0) throw new EngineError(ErrorCodes.BadValue, "can't $divide by zero");
  return new Double(toDouble(a) / d);
}

function toBig(v: unknown, k: NumericKind): bigint {
  if (k === "long") return longToBigInt(v);
  return BigInt(toDouble(v));
}

// ---------------------------------------------------------------------------------------------
// Exact decimal arithmetic on (sign, coefficient, exponent), rounded like IEEE 754 decimal128.

const MAX_DIGITS = 34;
const MAX_EXP = 6111;
const MIN_EXP = -6176;
const NAN_PARTS: DecimalParts = { neg: false, coef: 0n, exp: 0, special: "NaN" };

function toDecParts(v: unknown, k: NumericKind): DecimalParts {
  switch (k) {
    case "decimal":
      return decimalParts(v as Decimal128);
    case "long":
      return signedParts(longToBigInt(v), 0);
    case "int":
      return signedParts(BigInt(toDouble(v)), 0);
    case "double":
      return doubleToDecParts(toDouble(v));
  }
}

function signedParts(n: bigint, exp: number): DecimalParts {
  return n < 0n ? { neg: true, coef: -n, exp } : { neg: false, coef: n, exp };
}

/** The server converts doubles to decimal keeping 15 significant digits. */
function doubleToDecParts(d: number): DecimalParts {
  if (Number.isNaN(d)) return NAN_PARTS;
  if (!Number.isFinite(d)) return { neg: d < 0, coef: 0n, exp: 0, special: "Infinity" };
  if (d === 0) return { neg: Object.is(d, -0), coef: 0n, exp: 0 };
  return parseDecimalString(d.toPrecision(15));
}

/**
 * Converts any numeric to Decimal128 the way `$toDecimal` and mixed decimal arithmetic do.
 *
 * @example
 * toDecimal128(new Int32(3)).toString(); // "3"
 */
export function toDecimal128(v: unknown): Decimal128 {
  const k = requireKind(v, "$toDecimal");
  if (k === "decimal") return v as Decimal128;
  return decimalFromParts(toDecParts(v, k));
}

function digitCount(n: bigint): number {
  return n === 0n ? 1 : n.toString().length;
}

/** Rounds `coef` by dropping `drop` digits, half to even. */
function roundDrop(coef: bigint, drop: number): bigint {
  if (drop <= 0) return coef;
  const div = 10n ** BigInt(drop);
  const q = coef / div;
  const r = coef % div;
  const half = div / 2n;
  if (r > half || (r === half && q % 2n === 1n)) return q + 1n;
  return q;
}

function normalise(p: DecimalParts): DecimalParts {
  if (p.special !== undefined) return p;
  let { coef, exp } = p;
  const digits = digitCount(coef);
  if (digits > MAX_DIGITS) {
    const drop = digits - MAX_DIGITS;
    coef = roundDrop(coef, drop);
    exp += drop;
    if (digitCount(coef) > MAX_DIGITS) {
      coef /= 10n;
      exp += 1;
    }
  }
  if (exp < MIN_EXP) {
    coef = roundDrop(coef, MIN_EXP - exp);
    exp = MIN_EXP;
  }
  if (exp > MAX_EXP) {
    if (coef === 0n) exp = MAX_EXP;
    else {
      // Clamp by padding the coefficient with zeros if it still fits in 34 digits.
      const pad = exp - MAX_EXP;
      if (digitCount(coef) + pad <= MAX_DIGITS) {
        coef *= 10n ** BigInt(pad);
        exp = MAX_EXP;
      } else return { neg: p.neg, coef: 0n, exp: 0, special: "Infinity" };
    }
  }
  return { neg: p.neg, coef, exp };
}

function decAdd(a: DecimalParts, b: DecimalParts): DecimalParts {
  if (a.special === "NaN" || b.special === "NaN") return NAN_PARTS;
  if (a.special === "Infinity" || b.special === "Infinity") {
    if (a.special === "Infinity" && b.special === "Infinity" && a.neg !== b.neg) return NAN_PARTS;
    return a.special === "Infinity" ? a : b;
  }
  const exp = Math.min(a.exp, b.exp);
  const x = (a.neg ? -a.coef : a.coef) * 10n ** BigInt(a.exp - exp);
  const y = (b.neg ? -b.coef : b.coef) * 10n ** BigInt(b.exp - exp);
  const sum = x + y;
  if (sum === 0n) return { neg: a.neg && b.neg, coef: 0n, exp };
  return normalise(signedParts(sum, exp));
}

function decMul(a: DecimalParts, b: DecimalParts): DecimalParts {
  const neg = a.neg !== b.neg;
  if (a.special === "NaN" || b.special === "NaN") return NAN_PARTS;
  if (a.special === "Infinity" || b.special === "Infinity") {
    const other = a.special === "Infinity" ? b : a;
    if (other.special === undefined && other.coef === 0n) return NAN_PARTS;
    return { neg, coef: 0n, exp: 0, special: "Infinity" };
  }
  return normalise({ neg, coef: a.coef * b.coef, exp: a.exp + b.exp });
}

function decDiv(a: DecimalParts, b: DecimalParts): DecimalParts {
  const neg = a.neg !== b.neg;
  if (a.special === "NaN" || b.special === "NaN") return NAN_PARTS;
  if (a.special === "Infinity") {
    return b.special === "Infinity" ? NAN_PARTS : { neg, coef: 0n, exp: 0, special: "Infinity" };
  }
  if (b.special === "Infinity") return { neg, coef: 0n, exp: 0 };
  if (a.coef === 0n) return { neg, coef: 0n, exp: a.exp - b.exp };
  // Scale the dividend so the quotient carries at least 35 digits, then round to 34. The ideal
  // exponent is a.exp - b.exp; trailing zeros beyond it are stripped, as IEEE 754 prescribes.
  const scale = Math.max(0, MAX_DIGITS + 1 + digitCount(b.coef) - digitCount(a.coef));
  const num = a.coef * 10n ** BigInt(scale);
  let q = num / b.coef;
  const exact = num % b.coef === 0n;
  let exp = a.exp - b.exp - scale;
  if (!exact) q = q * 10n + 1n; // sticky digit so half-way cases round correctly
  if (!exact) exp -= 1;
  const ideal = a.exp - b.exp;
  let r = normalise({ neg, coef: q, exp });
  if (exact) {
    let { coef, exp: e } = r;
    while (e < ideal && coef % 10n === 0n && coef !== 0n) {
      coef /= 10n;
      e += 1;
    }
    r = { neg, coef, exp: e };
  }
  return r;
}

/**
 * Builds a Decimal128 from exact parts (the coefficient must already fit 34 digits; internal
 * arithmetic normalises first).
 *
 * @example
 * decimalFromParts({neg: false, coef: 15n, exp: -1}).toString(); // "1.5"
 */
export function decimalFromParts(p: DecimalParts): Decimal128 {
  if (p.special === "NaN") return Decimal128.fromString("NaN");
  if (p.special === "Infinity") return Decimal128.fromString(p.neg ? "-Infinity" : "Infinity");
  const n = normalise(p);
  if (n.special !== undefined) return decimalFromParts(n);
  return Decimal128.fromString(`${n.neg ? "-" : ""}${n.coef}E${n.exp}`);
}

/**
 * Wraps a JS number the way the driver would serialise it: Int32 when integral and in range,
 * otherwise Double.
 *
 * @example
 * bsonNumber(3);   // Int32(3)
 * bsonNumber(0.5); // Double(0.5)
 */
export function bsonNumber(n: number): Int32 | Double {
  return isInt32Number(n) ? new Int32(n) : new Double(n);
}

/**
 * Converts a numeric value to the given kind (used by `$toInt`, `$toLong`, `$sum` promotion...).
 * Returns `undefined` when the value does not fit (int/long overflow, NaN to integer).
 *
 * @example
 * convertNumber(new Double(3.9), "int"); // Int32(3) (truncated)
 */
export function convertNumber(v: unknown, kind: NumericKind): Int32 | Long | Double | Decimal128 | undefined {
  const k = numericKind(v);
  if (k === undefined) return undefined;
  switch (kind) {
    case "double":
      return new Double(toDouble(v));
    case "decimal":
      return toDecimal128(v);
    case "int":
    case "long": {
      let n: bigint;
      if (k === "long") n = longToBigInt(v);
      else if (k === "decimal") {
        const p = decimalParts(v as Decimal128);
        if (p.special !== undefined) return undefined;
        const r = decToRational(p);
        n = r.num / r.den; // truncates toward zero
      } else {
        const d = toDouble(v);
        if (!Number.isFinite(d)) return undefined;
        n = BigInt(Math.trunc(d));
      }
      if (kind === "int") return n >= -2147483648n && n <= 2147483647n ? new Int32(Number(n)) : undefined;
      return n >= INT64_MIN && n <= INT64_MAX ? Long.fromBigInt(n) : undefined;
    }
  }
}

/**
 * True when the value is NaN (Double or Decimal128).
 *
 * @example
 * isNaNValue(Decimal128.fromString("NaN")); // true
 */
export function isNaNValue(v: unknown): boolean {
  const k = numericKind(v);
  if (k === "double") return Number.isNaN(toDouble(v));
  if (k === "decimal") return decimalParts(v as Decimal128).special === "NaN";
  return false;
}
