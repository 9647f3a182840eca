import { Int32, Long, ObjectId, Timestamp } from "bson";
import { EngineError } from "../engine-error.js";
import { bsonTypeName } from "./bson-type.js";
import { UTC_ZONE, dayOfWeek, dayOfYear, isoWeekDate, parseZone, sundayWeek, toLocal } from "./date-calendar.js";
import type { LocalTime, Zone } from "./date-calendar.js";
import { isDocument } from "./document-path.js";
import type { EvalCtx, Ev, ExprEnv, OperatorCompiler } from "./expression-types.js";

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
};
