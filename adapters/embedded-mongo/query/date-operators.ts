import { Int32, Long, ObjectId, Timestamp } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { bsonTypeName } from "./bson-type.js";
import {
  DAYS_OF_WEEK,
  TIME_UNITS,
  UTC_ZONE,
  addToDate,
  dateDiff,
  dayOfWeek,
  dayOfYear,
  daysFromIsoWeekDate,
  fromLocalParts,
  isoWeekDate,
  parseZone,
  sundayWeek,
  toLocal,
  truncateDate,
} from "./date-calendar.js";
import type { LocalTime, TimeUnit, Zone } from "./date-calendar.js";
import { FROM_STRING_SPECIFIERS, TO_STRING_SPECIFIERS, formatDate, parseDateString, validateFormat } from "./date-format.js";
import { isDocument } from "./document-path.js";
import type { EvalCtx, Ev, ExprEnv, OperatorCompiler } from "./expression-types.js";
import { toInt64 } from "./numeric.js";

const nullish = (v: unknown): v is null | undefined => v === null || v === undefined;

/** Milliseconds of a Date, Timestamp or ObjectId (mongod's `coerceToDate`), else undefined. */
function dateMillis(v: unknown): number | undefined {
  if (v instanceof Date) return v.getTime();
  if (v instanceof Timestamp) return v.getHighBitsUnsigned() * 1000;
  if (v instanceof ObjectId) return v.getTimestamp().getTime();
  return undefined;
}

function coerceToDate(v: unknown): number {
  const ms = dateMillis(v);
  if (ms === undefined) throw new EngineError(16006, `can't convert from BSON type ${bsonTypeName(v)} to Date`);
  return ms;
}

/** The `timezone` argument: UTC when absent, null when it evaluates to null or missing. */
function evalZone(tz: Ev | undefined, c: EvalCtx): Zone | null {
  if (tz === undefined) return UTC_ZONE;
  const v = tz(c);
  if (nullish(v)) return null;
  if (typeof v !== "string") throw new EngineError(40517, `timezone must evaluate to a string, found ${bsonTypeName(v)}`);
  return parseZone(v);
}

// ---------------------------------------------------------------------------------------------
// $year, $month, ... : `<date>`, `[<date>]` or `{date, timezone}`

function compileDatePart(part: (local: LocalTime) => unknown): OperatorCompiler {
  return (spec, env, name) => {
    let date: Ev;
    let tz: Ev | undefined;
    const firstKey = isDocument(spec) ? Object.keys(spec)[0] : undefined;
    if (isDocument(spec) && !(firstKey ?? "").startsWith("$")) {
      for (const k of Object.keys(spec)) {
        if (k !== "date" && k !== "timezone") throw new EngineError(40535, `unrecognized option to ${name}: "${k}"`);
      }
      if (!("date" in spec)) throw new EngineError(40539, `missing 'date' argument to ${name}, provided: ${JSON.stringify(spec)}`);
      date = env.compile(spec.date);
      tz = "timezone" in spec ? env.compile(spec.timezone) : undefined;
    } else if (Array.isArray(spec)) {
      if (spec.length !== 1) throw new EngineError(40536, `${name} accepts exactly one argument if given an array, but was given ${spec.length}`);
      date = env.compile(spec[0]);
    } else date = env.compile(spec);
    return (c) => {
      const v = date(c);
      if (nullish(v)) return null;
      const ms = coerceToDate(v);
      const zone = evalZone(tz, c);
      return zone === null ? null : part(toLocal(ms, zone));
    };
  };
}

const int = (n: number) => new Int32(n);

const DATE_PART_OPERATORS: Record<string, OperatorCompiler> = {
  $year: compileDatePart((l) => int(l.year)),
  $month: compileDatePart((l) => int(l.month)),
  $dayOfMonth: compileDatePart((l) => int(l.day)),
  $hour: compileDatePart((l) => int(l.hour)),
  $minute: compileDatePart((l) => int(l.minute)),
  $second: compileDatePart((l) => int(l.second)),
  $millisecond: compileDatePart((l) => int(l.millisecond)),
  $dayOfYear: compileDatePart((l) => int(dayOfYear(l))),
  $dayOfWeek: compileDatePart((l) => int(dayOfWeek(l.days))),
  $week: compileDatePart((l) => int(sundayWeek(l))),
  $isoWeek: compileDatePart((l) => int(isoWeekDate(l.days).isoWeek)),
  // mongod computes the ISO year as a 64-bit integer.
  $isoWeekYear: compileDatePart((l) => Long.fromNumber(isoWeekDate(l.days).isoYear)),
  $isoDayOfWeek: compileDatePart((l) => int(isoWeekDate(l.days).isoDay)),
};

// ---------------------------------------------------------------------------------------------
// Object arguments

interface ArgCodes {
  readonly object: number;
  readonly unknown: number;
  /** Required field → the code when it is absent. */
  readonly required: Readonly<Record<string, number>>;
}

function objectArgs(name: string, spec: unknown, allowed: readonly string[], codes: ArgCodes): Record<string, unknown> {
  if (!isDocument(spec)) throw new EngineError(codes.object, `${name} only supports an object as its argument`);
  for (const k of Object.keys(spec)) {
    if (!allowed.includes(k)) throw new EngineError(codes.unknown, `Unrecognized argument to ${name}: ${k}`);
  }
  for (const [k, code] of Object.entries(codes.required)) {
    if (!(k in spec)) throw new EngineError(code, `Missing '${k}' parameter to ${name}`);
  }
  return spec;
}

function optional(env: ExprEnv, o: Record<string, unknown>, key: string): Ev | undefined {
  return key in o ? env.compile(o[key]) : undefined;
}

/** An integral number that fits 64 bits (mongod's `integral64Bit`), else undefined. */
function integral(v: unknown): number | undefined {
  const n = toInt64(v);
  return n === undefined ? undefined : Number(n);
}

/** `unit` of `$dateDiff` and `$dateTrunc`. */
function timeUnit(name: string, v: unknown): TimeUnit {
  if (typeof v !== "string") throw new EngineError(5439013, `${name} requires 'unit' to be a string, but got ${bsonTypeName(v)}`);
  if (!TIME_UNITS.has(v)) throw new EngineError(5439014, `${name} parameter 'unit' value cannot be recognized as a time unit: ${v}`);
  return v as TimeUnit;
}

/** `startOfWeek` as an ISO day number (1 = Monday), case-insensitive "monday"/"mon"... */
function startOfWeek(name: string, v: unknown): number {
  if (typeof v !== "string") throw new EngineError(5439015, `${name} requires 'startOfWeek' to be a string, but got ${bsonTypeName(v)}`);
  const day = DAYS_OF_WEEK.get(v.toLowerCase());
  if (day === undefined) throw new EngineError(5439016, `${name} parameter 'startOfWeek' value cannot be recognized as a day of a week: ${v}`);
  return day;
}

const SUNDAY = 7;

function dateArg(name: string, param: string, v: unknown): number {
  const ms = dateMillis(v);
  if (ms === undefined) throw new EngineError(5166307, `${name} requires '${param}' to be a date, but got ${bsonTypeName(v)}`);
  return ms;
}

// ---------------------------------------------------------------------------------------------
// $dateAdd, $dateSubtract, $dateTrunc, $dateDiff

function compileDateArithmetic(sign: 1 | -1): OperatorCompiler {
  return (spec, env, name) => {
    const o = objectArgs(name, spec, ["startDate", "unit", "amount", "timezone"], {
      object: 5166400,
      unknown: 5166401,
      required: { startDate: 5166402, unit: 5166402, amount: 5166402 },
    });
    const start = env.compile(o.startDate);
    const unit = env.compile(o.unit);
    const amount = env.compile(o.amount);
    const tz = optional(env, o, "timezone");
    return (c) => {
      const s = start(c);
      if (nullish(s)) return null;
      const u = unit(c);
      if (nullish(u)) return null;
      if (typeof u !== "string") throw new EngineError(5166404, `${name} requires 'unit' to be a string, but got ${bsonTypeName(u)}`);
      if (!TIME_UNITS.has(u)) throw new EngineError(ErrorCodes.FailedToParse, `unknown time unit value: ${u}`);
      const a = amount(c);
      if (nullish(a)) return null;
      const zone = evalZone(tz, c);
      if (zone === null) return null;
      const ms = dateMillis(s);
      if (ms === undefined) throw new EngineError(5166403, `${name} requires startDate to be convertible to a date`);
      const n = integral(a);
      if (n === undefined) throw new EngineError(5166405, `${name} expects integer amount of time units`);
      return new Date(addToDate(ms, u as TimeUnit, sign * n, zone));
    };
  };
}

function compileDateTrunc(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["date", "unit", "binSize", "timezone", "startOfWeek"], {
    object: 5439007,
    unknown: 5439008,
    required: { date: 5439009, unit: 5439010 },
  });
  const date = env.compile(o.date);
  const unit = env.compile(o.unit);
  const binSize = optional(env, o, "binSize");
  const tz = optional(env, o, "timezone");
  const sow = optional(env, o, "startOfWeek");
  return (c) => {
    const dv = date(c);
    if (nullish(dv)) return null;
    let bin = 1;
    if (binSize !== undefined) {
      const b = binSize(c);
      if (nullish(b)) return null;
      const n = integral(b);
      if (n === undefined) throw new EngineError(5439017, `$dateTrunc requires 'binSize' to be a 64-bit integer, but got value of type ${bsonTypeName(b)}`);
      if (n <= 0) throw new EngineError(5439018, `$dateTrunc requires 'binSize' to be greater than 0, but got value ${n}`);
      bin = n;
    }
    const uv = unit(c);
    if (nullish(uv)) return null;
    const u = timeUnit(name, uv);
    const firstDay = weekStart(name, u, sow, c);
    if (firstDay === null) return null;
    const zone = evalZone(tz, c);
    if (zone === null) return null;
    return new Date(truncateDate(dateArg(name, "date", dv), u, bin, zone, firstDay));
  };
}

/** The first day of the week for unit "week" (`startOfWeek`, Sunday by default); null when `startOfWeek` is null. */
function weekStart(name: string, unit: TimeUnit, sow: Ev | undefined, c: EvalCtx): number | null {
  if (unit !== "week" || sow === undefined) return SUNDAY;
  const w = sow(c);
  return nullish(w) ? null : startOfWeek(name, w);
}

function compileDateDiff(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["startDate", "endDate", "unit", "timezone", "startOfWeek"], {
    object: 5166301,
    unknown: 5166302,
    required: { startDate: 5166303, endDate: 5166304, unit: 5166305 },
  });
  const start = env.compile(o.startDate);
  const end = env.compile(o.endDate);
  const unit = env.compile(o.unit);
  const tz = optional(env, o, "timezone");
  const sow = optional(env, o, "startOfWeek");
  return (c) => {
    const s = start(c);
    if (nullish(s)) return null;
    const e = end(c);
    if (nullish(e)) return null;
    const uv = unit(c);
    if (nullish(uv)) return null;
    const u = timeUnit(name, uv);
    const firstDay = weekStart(name, u, sow, c);
    if (firstDay === null) return null;
    const zone = evalZone(tz, c);
    if (zone === null) return null;
    return Long.fromNumber(dateDiff(dateArg(name, "startDate", s), dateArg(name, "endDate", e), u, zone, firstDay));
  };
}

// ---------------------------------------------------------------------------------------------
// $dateToParts, $dateFromParts

function compileDateToParts(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["date", "timezone", "iso8601"], { object: 40524, unknown: 40520, required: { date: 40522 } });
  const date = env.compile(o.date);
  const tz = optional(env, o, "timezone");
  const iso = optional(env, o, "iso8601");
  return (c) => {
    const v = date(c);
    const zone = evalZone(tz, c);
    if (zone === null) return null;
    let iso8601 = false;
    if (iso !== undefined) {
      const f = iso(c);
      if (nullish(f)) return null;
      if (typeof f !== "boolean") throw new EngineError(40521, `iso8601 must evaluate to a bool, found ${bsonTypeName(f)}`);
      iso8601 = f;
    }
    if (nullish(v)) return null;
    const l = toLocal(coerceToDate(v), zone);
    const time = { hour: int(l.hour), minute: int(l.minute), second: int(l.second), millisecond: int(l.millisecond) };
    if (!iso8601) return { year: int(l.year), month: int(l.month), day: int(l.day), ...time };
    const w = isoWeekDate(l.days);
    return { isoWeekYear: int(w.isoYear), isoWeek: int(w.isoWeek), isoDayOfWeek: int(w.isoDay), ...time };
  };
}

const DATE_FROM_PARTS_FIELDS = ["year", "month", "day", "hour", "minute", "second", "millisecond", "isoWeekYear", "isoWeek", "isoDayOfWeek", "timezone"];
// Parts mongod bounds to 16 bits, so rolling over them stays cheap.
const BOUNDED_PARTS = new Set(["month", "day", "hour", "minute", "isoWeek", "isoDayOfWeek"]);

function compileDateFromParts(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, DATE_FROM_PARTS_FIELDS, { object: 40519, unknown: 40518, required: {} });
  const iso = "isoWeekYear" in o;
  if (!("year" in o) && !iso) throw new EngineError(40516, "$dateFromParts requires either 'year' or 'isoWeekYear' to be present");
  if ("year" in o && ("isoWeekYear" in o || "isoWeek" in o || "isoDayOfWeek" in o)) throw new EngineError(40489, "$dateFromParts does not allow mixing natural dates with ISO dates");
  if (iso && ("month" in o || "day" in o)) throw new EngineError(40525, "$dateFromParts does not allow mixing ISO dates with natural dates");
  const part = (field: string, fallback: number): ((c: EvalCtx) => number | null) => {
    if (!(field in o)) return () => fallback;
    const ev = env.compile(o[field]);
    return (c) => {
      const v = ev(c);
      if (nullish(v)) return null;
      const n = integral(v);
      if (n === undefined) throw new EngineError(40515, `'${field}' must evaluate to an integer, found ${bsonTypeName(v)}`);
      if (BOUNDED_PARTS.has(field) && (n < -32768 || n > 32767)) {
        throw new EngineError(31034, `'${field}' must evaluate to a value in the range [-32768, 32767]; value ${n} is not in range`);
      }
      return n;
    };
  };
  const [hour, minute, second, ms] = [part("hour", 0), part("minute", 0), part("second", 0), part("millisecond", 0)];
  const [year, first, third] = iso ? [part("isoWeekYear", 1970), part("isoWeek", 1), part("isoDayOfWeek", 1)] : [part("year", 1970), part("month", 1), part("day", 1)];
  const tz = optional(env, o, "timezone");
  // mongod reads the time parts, then the timezone, then the date parts, stopping at the first null.
  const all = (c: EvalCtx, parts: ((c: EvalCtx) => number | null)[]): number[] | null => {
    const out: number[] = [];
    for (const p of parts) {
      const n = p(c);
      if (n === null) return null;
      out.push(n);
    }
    return out;
  };
  return (c) => {
    const time = all(c, [hour, minute, second, ms]);
    if (time === null) return null;
    const zone = evalZone(tz, c);
    if (zone === null) return null;
    const date = all(c, [year, first, third]);
    if (date === null) return null;
    const [y, a, b] = date as [number, number, number];
    const [h, mi, s, l] = time as [number, number, number, number];
    if (y < 1 || y > 9999) {
      throw new EngineError(iso ? 31095 : 40523, `'${iso ? "isoWeekYear" : "year"}' must evaluate to an integer in the range 1 to 9999, found ${y}`);
    }
    if (!iso) return new Date(fromLocalParts(y, a, b, h, mi, s, l, zone));
    return new Date(fromLocalParts(1970, 1, 1 + daysFromIsoWeekDate(y, a, b), h, mi, s, l, zone));
  };
}

// ---------------------------------------------------------------------------------------------
// $dateToString, $dateFromString

/** Evaluates `format` eagerly (a bad one fails even for a null date): undefined when absent, null when null. */
function evalFormat(ev: Ev | undefined, c: EvalCtx, typeCode: number, name: string, allowed: ReadonlySet<string>): string | null | undefined {
  if (ev === undefined) return undefined;
  const f = ev(c);
  if (nullish(f)) return null;
  if (typeof f !== "string") throw new EngineError(typeCode, `${name} requires that 'format' be a string, found: ${bsonTypeName(f)}`);
  validateFormat(f, allowed);
  return f;
}

function compileDateToString(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["date", "format", "timezone", "onNull"], { object: 18629, unknown: 18534, required: { date: 18628 } });
  const date = env.compile(o.date);
  const format = optional(env, o, "format");
  const tz = optional(env, o, "timezone");
  const onNull = optional(env, o, "onNull");
  return (c) => {
    const v = date(c);
    const f = evalFormat(format, c, 18533, name, TO_STRING_SPECIFIERS);
    const zone = evalZone(tz, c);
    if (nullish(v)) return onNull === undefined ? null : onNull(c);
    if (zone === null || f === null) return null;
    return formatDate(f ?? (zone.isUtc ? "%Y-%m-%dT%H:%M:%S.%LZ" : "%Y-%m-%dT%H:%M:%S.%L"), coerceToDate(v), zone);
  };
}

function compileDateFromString(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["dateString", "format", "timezone", "onNull", "onError"], { object: 40540, unknown: 40541, required: { dateString: 40542 } });
  const dateString = env.compile(o.dateString);
  const format = optional(env, o, "format");
  const tz = optional(env, o, "timezone");
  const onNull = optional(env, o, "onNull");
  const onError = optional(env, o, "onError");
  return (c) => {
    const s = dateString(c);
    const f = evalFormat(format, c, 40684, name, FROM_STRING_SPECIFIERS);
    const zone = evalZone(tz, c);
    if (nullish(s)) return onNull === undefined ? null : onNull(c);
    try {
      if (typeof s !== "string") {
        throw new EngineError(ErrorCodes.ConversionFailure, `$dateFromString requires that 'dateString' be a string, found: ${bsonTypeName(s)}`);
      }
      if (zone === null || f === null) return null;
      return new Date(parseDateString(s, f, zone));
    } catch (e) {
      if (onError !== undefined && e instanceof EngineError && e.code === ErrorCodes.ConversionFailure) return onError(c);
      throw e;
    }
  };
}

/**
 * The date expression operators implemented natively (`$year`, `$dateAdd`, `$dateTrunc`...), with
 * MongoDB's null handling and calendar rules. Operators not listed here still go to mingo
 * (docs/decisions.md, "What still falls back to mingo").
 *
 * @example
 * NATIVE_OPERATORS.$year === DATE_OPERATORS.$year;
 */
export const DATE_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  ...DATE_PART_OPERATORS,
  $dateAdd: compileDateArithmetic(1),
  $dateSubtract: compileDateArithmetic(-1),
  $dateTrunc: compileDateTrunc,
  $dateDiff: compileDateDiff,
  $dateToParts: compileDateToParts,
  $dateFromParts: compileDateFromParts,
  $dateToString: compileDateToString,
  $dateFromString: compileDateFromString,
};
