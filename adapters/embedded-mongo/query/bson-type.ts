import { EngineError, ErrorCodes } from "../engine-error.js";

/**
 * BSON type numbers as MongoDB reports them (`$type`, `{$type: <number>}` queries). `MISSING_TYPE`
 * (0, BSON's end-of-object marker) stands for an absent field, which is not a BSON type.
 *
 * @example
 * BsonTypeCode.int === 16;
 */
export const BsonTypeCode = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
} as const;

/** The code returned for an absent field (JS `undefined`). */
export const MISSING_TYPE = 0;

const NAME_BY_CODE: ReadonlyMap<number, string> = new Map(
  Object.entries(BsonTypeCode).map(([name, code]) => [code, name]),
);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * True when a JS number would be stored as Int32 (integral and inside the int32 range, not -0).
 *
 * @example
 * isInt32Number(5);   // true
 * isInt32Number(2 ** 31); // false
 */
export function isInt32Number(n: number): boolean {
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX && !Object.is(n, -0);
}

/**
 * The BSON type number of a value, or `MISSING_TYPE` (0) for `undefined`. Plain JS numbers count as
 * Int32 when integral and in range, otherwise Double (that is how the driver would serialise them);
 * bigints count as Long.
 *
 * @example
 * bsonTypeCode(new Int32(1)); // 16
 * bsonTypeCode([1]);          // 4
 */
export function bsonTypeCode(v: unknown): number {
  switch (typeof v) {
    case "string":
      return 2;
    case "number":
      return isInt32Number(v) ? 16 : 1;
    case "boolean":
      return 8;
    case "undefined":
      return MISSING_TYPE;
    case "bigint":
      return 18;
    case "object": {
      if (v === null) return 10;
      if (Array.isArray(v)) return 4;
      const tag = (v as { _bsontype?: unknown })._bsontype;
      if (tag !== undefined) return codeOfTag(tag, v);
      if (v instanceof Date) return 9;
      if (v instanceof RegExp) return 11;
      if (v instanceof Uint8Array) return 5;
      return 3;
    }
    default:
      // Functions and symbols never come out of BSON; report them as objects rather than crash.
      return 3;
  }
}

function codeOfTag(tag: unknown, v: object): number {
  switch (tag) {
    case "Int32":
      return 16;
    case "Double":
      return 1;
    case "Long":
      return 18;
    case "Decimal128":
      return 19;
    case "ObjectId":
      return 7;
    case "Binary":
      return 5;
    case "Timestamp":
      return 17;
    case "BSONRegExp":
      return 11;
    case "MinKey":
      return -1;
    case "MaxKey":
      return 127;
    case "Code": {
      const scope = (v as { scope?: unknown }).scope;
      return scope === null || scope === undefined ? 13 : 15;
    }
    case "BSONSymbol":
      return 14;
    case "DBRef":
      return 3;
    default:
      return 3;
  }
}

/**
 * The `$type` aggregation name of a value (`"missing"` for an absent field).
 *
 * @example
 * bsonTypeName(new Double(1)); // "double"
 * bsonTypeName(undefined);     // "missing"
 */
export function bsonTypeName(v: unknown): string {
  const code = bsonTypeCode(v);
  if (code === MISSING_TYPE) return "missing";
  return NAME_BY_CODE.get(code) ?? "object";
}

/**
 * True for Int32, Double, Long, Decimal128, JS numbers and bigints.
 *
 * @example
 * isNumericValue(new Long(1)); // true
 */
export function isNumericValue(v: unknown): boolean {
  const c = bsonTypeCode(v);
  return c === 1 || c === 16 || c === 18 || c === 19;
}

/**
 * A compiled `$type` operand: the set of accepted type codes plus the `"number"` alias.
 *
 * @example
 * const t = parseTypeSpec(["string", 16]);
 * t.matches("x"); // true
 */
export interface TypeSpec {
  readonly codes: ReadonlySet<number>;
  readonly number: boolean;
  matches(v: unknown): boolean;
}

/**
 * Parses a `$type` operand: an alias (`"int"`, `"number"`, ...), a numeric code (Int32/Double/Long
 * holding an integral value), or an array of those. Throws BadValue (2) for unknown aliases or codes,
 * as the server does.
 *
 * @example
 * parseTypeSpec("number").matches(new Long(1)); // true
 */
export function parseTypeSpec(spec: unknown): TypeSpec {
  const items = Array.isArray(spec) ? spec : [spec];
  if (items.length === 0) throw new EngineError(ErrorCodes.BadValue, "$type must match at least one type");
  const codes = new Set<number>();
  let number = false;
  for (const item of items) {
    if (typeof item === "string") {
      if (item === "number") {
        number = true;
        continue;
      }
      const code = (BsonTypeCode as Record<string, number>)[item];
      if (code === undefined) throw new EngineError(ErrorCodes.BadValue, `Unknown type name alias: ${item}`);
      codes.add(code);
      continue;
    }
    const n = numericTypeCode(item);
    if (n === undefined || !NAME_BY_CODE.has(n)) {
      throw new EngineError(ErrorCodes.BadValue, `Invalid numerical type code: ${String(describeNumber(item))}`);
    }
    codes.add(n);
  }
  return {
    codes,
    number,
    matches(v: unknown): boolean {
      const c = bsonTypeCode(v);
      if (number && (c === 1 || c === 16 || c === 18 || c === 19)) return true;
      return codes.has(c);
    },
  };
}

function describeNumber(v: unknown): unknown {
  if (v !== null && typeof v === "object" && "_bsontype" in v) return String(v);
  return v;
}

function numericTypeCode(v: unknown): number | undefined {
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (v !== null && typeof v === "object") {
    const tag = (v as { _bsontype?: unknown })._bsontype;
    if (tag === "Int32" || tag === "Double") n = (v as { value: number }).value;
    else if (tag === "Long") n = (v as { toNumber(): number }).toNumber();
    else if (tag === "Decimal128") n = Number(String(v));
  }
  if (n === undefined || !Number.isInteger(n)) return undefined;
  return n;
}
