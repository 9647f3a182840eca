import { Decimal128, Double, Int32, Long, ObjectId } from "bson";
import type { Timestamp } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { BsonTypeCode, bsonTypeCode, bsonTypeName } from "./bson-type.js";
import { compareNumbers, convertNumber, decimalParts, numericKind, toDecimal128, toDouble } from "./numeric.js";

/** Target types `$convert` supports. */
export type ConvertTarget = "double" | "string" | "objectId" | "bool" | "date" | "int" | "long" | "decimal";

const TARGETS = new Set<string>(["double", "string", "objectId", "bool", "date", "int", "long", "decimal"]);

/**
 * Resolves the `to` of `$convert`: a type name or numeric type code. Throws BadValue for others.
 *
 * @example
 * convertTarget(new Int32(16)); // "int"
 */
export function convertTarget(to: unknown): ConvertTarget {
  if (typeof to === "string") {
    if (TARGETS.has(to)) return to as ConvertTarget;
    throw new EngineError(ErrorCodes.BadValue, `Unknown type name: ${to}`);
  }
  if (numericKind(to) !== undefined) {
    const code = toDouble(to);
    for (const [name, c] of Object.entries(BsonTypeCode)) {
      if (c === code && TARGETS.has(name)) return name as ConvertTarget;
    }
    throw new EngineError(ErrorCodes.BadValue, `In $convert, numeric value for 'to' does not correspond to a BSON type: ${code}`);
  }
  throw new EngineError(ErrorCodes.BadValue, `$convert's 'to' argument must be a string or number, but is ${bsonTypeName(to)}`);
}

function fail(msg: string): never {
  throw new EngineError(ErrorCodes.ConversionFailure, msg);
}

function unsupported(v: unknown, to: string): never {
  fail(`Unsupported conversion from ${bsonTypeName(v)} to ${to} in $convert with no onError value`);
}

/**
 * Converts a non-null value the way `$convert` does (null/missing are handled by the caller via
 * `onNull`). Throws ConversionFailure (241) when the conversion is impossible; callers with an
 * `onError` catch it.
 *
 * @example
 * convertValue("42", "int");           // Int32(42)
 * convertValue(new Double(2.5), "decimal"); // Decimal128("2.50000000000000")
 */
export function convertValue(v: unknown, to: ConvertTarget): unknown {
  const t = bsonTypeCode(v);
  switch (to) {
    case "bool":
      if (t === 8) return v;
      if (numericKind(v) !== undefined) return compareNumbers(v, 0) !== 0;
      return true; // every other type (strings included, even "") converts to true
    case "double": {
      if (t === 8) return new Double(v ? 1 : 0);
      if (t === 9) return new Double((v as Date).getTime());
      if (t === 2) return new Double(parseNumberString(v as string, to));
      const k = numericKind(v);
      if (k === "decimal") {
        const d = toDouble(v);
        if (!Number.isFinite(d) && decimalParts(v as Decimal128).special === undefined) fail(`Conversion would overflow target type in $convert with no onError value: ${String(v)}`);
        return new Double(d);
      }
      if (k !== undefined) return new Double(toDouble(v));
      return unsupported(v, to);
    }
    case "int":
    case "long": {
      if (t === 8) return to === "int" ? new Int32(v ? 1 : 0) : Long.fromNumber(v ? 1 : 0);
      if (t === 9) {
        if (to === "int") return unsupported(v, to);
        return Long.fromNumber((v as Date).getTime());
      }
      if (t === 2) {
        const s = v as string;
        if (!/^[+-]?\d+$/.test(s)) fail(`Failed to parse number '${s}' in $convert with no onError value: Did not consume whole string.`);
        const n = BigInt(s);
        const r = convertNumber(Long.fromBigInt(BigInt.asIntN(64, n)), to);
        if (r === undefined || BigInt.asIntN(64, n) !== n) fail(`Failed to parse number '${s}' in $convert with no onError value: Overflow`);
        return r;
      }
      const k = numericKind(v);
      if (k === undefined) return unsupported(v, to);
      if (k === "double" || k === "decimal") {
        const d = toDouble(v);
        if (Number.isNaN(d)) fail(`Attempt to convert NaN value to integer type in $convert with no onError value`);
        if (!Number.isFinite(d)) fail(`Attempt to convert infinity value to integer type in $convert with no onError value`);
      }
      const r = convertNumber(v, to);
      if (r === undefined) fail(`Conversion would overflow target type in $convert with no onError value: ${String(v)}`);
      return r;
    }
    case "decimal": {
      if (t === 8) return Decimal128.fromString(v ? "1" : "0");
      if (t === 9) return Decimal128.fromString(String((v as Date).getTime()));
      if (t === 2) {
        try {
          return Decimal128.fromString((v as string).trim() === v ? (v as string) : "x");
        } catch {
          fail(`Failed to parse string to decimal in $convert with no onError value: ${String(v)}`);
        }
      }
      if (numericKind(v) !== undefined) return toDecimal128(v);
      return unsupported(v, to);
    }
    case "string":
      return valueToString(v);
    case "objectId":
      if (t === 7) return v;
      if (t === 2 && /^[0-9a-fA-F]{24}$/.test(v as string)) return new ObjectId(v as string);
      if (t === 2) fail(`Failed to parse objectId '${String(v)}' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found ${(v as string).length}`);
      return unsupported(v, to);
    case "date": {
      if (t === 9) return v;
      if (t === 7) return (v as ObjectId).getTimestamp();
      if (t === 17) return new Date((v as Timestamp).t * 1000);
      if (t === 2) {
        const ms = Date.parse(v as string);
        if (Number.isNaN(ms)) fail(`Error parsing date string '${String(v)}'`);
        return new Date(ms);
      }
      const k = numericKind(v);
      if (k === "long" || k === "double" || k === "decimal") {
        const d = toDouble(v);
        if (!Number.isFinite(d)) fail(`Conversion would overflow target type in $convert with no onError value`);
        return new Date(Math.trunc(d));
      }
      return unsupported(v, to);
    }
  }
}

function parseNumberString(s: string, to: string): number {
  const trimmed = s;
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return Number(trimmed);
  if (/^[+-]?(inf|infinity)$/i.test(trimmed)) return trimmed.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(trimmed)) return NaN;
  fail(`Failed to parse number '${s}' in $convert with no onError value: Did not consume whole string.`);
  void to;
}

/**
 * The string form `$toString` produces: numbers in shortest round-trip form, dates as ISO-8601
 * with milliseconds, ObjectIds as hex, booleans as `true`/`false`.
 *
 * @example
 * valueToString(new Double(1.5)); // "1.5"
 */
export function valueToString(v: unknown): string {
  const t = bsonTypeCode(v);
  switch (t) {
    case 2:
      return v as string;
    case 14:
      return String((v as { value: unknown }).value);
    case 8:
      return v ? "true" : "false";
    case 16:
    case 18:
    case 19:
      return String(typeof v === "number" || typeof v === "bigint" ? v : v);
    case 1: {
      const d = toDouble(v);
      if (Number.isNaN(d)) return "NaN";
      if (!Number.isFinite(d)) return d > 0 ? "Infinity" : "-Infinity";
      return String(d);
    }
    case 7:
      return (v as ObjectId).toHexString();
    case 9:
      return (v as Date).toISOString();
    default:
      return unsupported(v, "string");
  }
}
