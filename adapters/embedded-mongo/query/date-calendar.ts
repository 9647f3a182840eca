import { EngineError, ErrorCodes } from "../engine-error.js";

/**
 * The calendar and time-zone arithmetic behind the date operators (date-operators.ts), following
 * mongod (timelib): proleptic Gregorian calendar, instants in milliseconds since the epoch, local
 * times as "milliseconds since the epoch of the wall clock", zones read through Intl.
 */

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

const mod = (a: number, b: number): number => ((a % b) + b) % b;

/**
 * Days since 1970-01-01 of a proleptic Gregorian date; the day may overflow the month (it rolls).
 *
 * @example
 * daysFromCivil(1970, 1, 2); // 1
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/**
 * The date of a day number of {@link daysFromCivil}.
 *
 * @example
 * civilFromDays(0); // { year: 1970, month: 1, day: 1 }
 */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day: doy - Math.floor((153 * mp + 2) / 5) + 1 };
}

/** @example daysInMonth(2024, 2); // 29 */
export function daysInMonth(year: number, month: number): number {
  return daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1);
}

/** ISO day of week (1 = Monday ... 7 = Sunday) of a day number. */
export function isoDayOfWeek(days: number): number {
  return mod(days + 3, 7) + 1;
}

/**
 * ISO 8601 week date of a day number: the week belongs to the year of its Thursday.
 *
 * @example
 * isoWeekDate(daysFromCivil(2021, 1, 1)); // { isoYear: 2020, isoWeek: 53, isoDay: 5 }
 */
export function isoWeekDate(days: number): { isoYear: number; isoWeek: number; isoDay: number } {
  const isoDay = isoDayOfWeek(days);
  const thursday = days - isoDay + 4;
  const isoYear = civilFromDays(thursday).year;
  return { isoYear, isoWeek: Math.floor((thursday - daysFromCivil(isoYear, 1, 1)) / 7) + 1, isoDay };
}

/** Day of the week, 1 = Sunday ... 7 = Saturday (`$dayOfWeek`, `%w`). */
export function dayOfWeek(days: number): number {
  return mod(days + 4, 7) + 1;
}

/** Day of the year, 1 ... 366. */
export function dayOfYear(local: { readonly year: number; readonly days: number }): number {
  return local.days - daysFromCivil(local.year, 1, 1) + 1;
}

/**
 * Week of the year with weeks starting on Sunday, 0 before the year's first Sunday, like strftime
 * %U (`$week`, `%U`).
 *
 * @example
 * sundayWeek(toLocal(Date.UTC(1998, 10, 1), UTC_ZONE)); // 44
 */
export function sundayWeek(local: { readonly year: number; readonly days: number }): number {
  return Math.floor((dayOfYear(local) - dayOfWeek(local.days) + 7) / 7);
}

/** Day number of an ISO week date; out-of-range weeks and days roll over, as in timelib. */
export function daysFromIsoWeekDate(isoYear: number, isoWeek: number, isoDay: number): number {
  const jan4 = daysFromCivil(isoYear, 1, 4);
  return jan4 - (isoDayOfWeek(jan4) - 1) + (isoWeek - 1) * 7 + (isoDay - 1);
}

// ---------------------------------------------------------------------------------------------
// Zones

/** A time zone as mongod accepts it: UTC, a fixed UTC offset or an Olson identifier. */
export interface Zone {
  /** UTC itself (no timezone, "UTC" or a zero offset); only then does `$dateToString` end its default format with "Z". */
  readonly isUtc: boolean;
  /** The offset east of UTC, in milliseconds, in force at an instant. */
  offsetAt(ms: number): number;
}

export const UTC_ZONE: Zone = { isUtc: true, offsetAt: () => 0 };

const zones = new Map<string, Zone>();

/**
 * Resolves a `timezone` argument: "UTC", "+hh", "+hhmm", "+hh:mm" (or "-"), or an Olson name
 * (case-sensitive, as in mongod), else UnrecognizedTimeZone (40485).
 *
 * @example
 * parseZone("America/New_York").offsetAt(Date.UTC(2024, 0, 1)); // -18000000
 */
export function parseZone(name: string): Zone {
  const cached = zones.get(name);
  if (cached !== undefined) return cached;
  let zone: Zone;
  const offset = parseUtcOffset(name);
  if (name === "UTC" || offset === 0) zone = UTC_ZONE;
  else if (offset !== undefined) zone = { isUtc: false, offsetAt: () => offset };
  else zone = olsonZone(name);
  zones.set(name, zone);
  return zone;
}

function parseUtcOffset(s: string): number | undefined {
  const m = /^([+-])(\d\d)(?::?(\d\d))?$/.exec(s);
  if (m === null || (s.length === 6 && s[3] !== ":") || (s.length === 5 && s.includes(":"))) return undefined;
  const sign = m[1] === "-" ? -1 : 1;
  return sign * (Number(m[2]) * HOUR_MS + Number(m[3] ?? 0) * MINUTE_MS);
}

function unknownZone(name: string): never {
  throw new EngineError(40485, `unrecognized time zone identifier: "${name}"`);
}

function olsonZone(name: string): Zone {
  if (!/^[A-Za-z]/.test(name)) unknownZone(name);
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    return unknownZone(name);
  }
  // Intl matches names case-insensitively; mongod's zone table does not.
  const resolved = format.resolvedOptions().timeZone;
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) unknownZone(name);
  return { isUtc: false, offsetAt: (ms) => intlOffset(format, ms) };
}

function intlOffset(format: Intl.DateTimeFormat, ms: number): number {
  const s = Math.floor(ms / 1000) * 1000;
  const f = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
  let bc = false;
  for (const p of format.formatToParts(s)) {
    if (p.type === "era") bc = p.value === "BC";
    else if (p.type in f) f[p.type as keyof typeof f] = Number(p.value);
  }
  const year = bc ? 1 - f.year : f.year;
  return daysFromCivil(year, f.month, f.day) * DAY_MS + f.hour * HOUR_MS + f.minute * MINUTE_MS + f.second * 1000 - s;
}

/** The wall clock of an instant in a zone, as mongod's date parts. */
export interface LocalTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
  /** Local day number ({@link daysFromCivil}). */
  readonly days: number;
  /** Offset east of UTC in force, in milliseconds. */
  readonly offset: number;
}

/**
 * @example
 * toLocal(Date.UTC(2024, 2, 1, 2), parseZone("America/New_York")).day; // 29 (February)
 */
export function toLocal(ms: number, zone: Zone): LocalTime {
  const offset = zone.offsetAt(ms);
  const local = ms + offset;
  const days = Math.floor(local / DAY_MS);
  const { year, month, day } = civilFromDays(days);
  const t = local - days * DAY_MS;
  return {
    year,
    month,
    day,
    hour: Math.floor(t / HOUR_MS),
    minute: Math.floor(t / MINUTE_MS) % 60,
    second: Math.floor(t / 1000) % 60,
    millisecond: t % 1000,
    days,
    offset,
  };
}

/**
 * The instant of a wall-clock time (milliseconds since the local epoch) in a zone. An ambiguous
 * time (clocks set back) is the earlier instant; a time skipped by a DST change is read with the
 * offset in force before the change (02:30 on a spring-forward night in New York is 03:30 EDT),
 * as timelib does.
 */
export function localToInstant(local: number, zone: Zone): number {
  const before = zone.offsetAt(local - DAY_MS);
  const after = zone.offsetAt(local + DAY_MS);
  const early = local - before;
  if (before === after && zone.offsetAt(early) === before) return early;
  const late = local - after;
  const earlyOk = zone.offsetAt(early) === before;
  const lateOk = zone.offsetAt(late) === after;
  if (earlyOk && lateOk) return Math.min(early, late);
  return lateOk && !earlyOk ? late : early;
}

/**
 * The instant of local date parts in a zone; parts out of range roll over as in timelib (month 14
 * is February of the next year, day 0 the last day of the previous month).
 *
 * @example
 * fromLocalParts(2024, 14, 1, 0, 0, 0, 0, UTC_ZONE); // Date.UTC(2025, 1, 1)
 */
export function fromLocalParts(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number, zone: Zone): number {
  const y = year + Math.floor((month - 1) / 12);
  const days = daysFromCivil(y, mod(month - 1, 12) + 1, 1) + day - 1;
  return localToInstant(days * DAY_MS + hour * HOUR_MS + minute * MINUTE_MS + second * 1000 + ms, zone);
}

// ---------------------------------------------------------------------------------------------
// Units

export type TimeUnit = "year" | "quarter" | "month" | "week" | "day" | "hour" | "minute" | "second" | "millisecond";

export const TIME_UNITS: ReadonlySet<string> = new Set<TimeUnit>(["year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond"]);

const FIXED_UNIT_MS: Partial<Record<TimeUnit, number>> = { hour: HOUR_MS, minute: MINUTE_MS, second: 1000, millisecond: 1 };

/** Day names accepted by `startOfWeek`, to ISO day numbers (1 = Monday). */
export const DAYS_OF_WEEK: ReadonlyMap<string, number> = new Map(
  ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].flatMap((d, i) => [
    [d, i + 1],
    [d.slice(0, 3), i + 1],
  ]),
);

// The largest |amount| mongod accepts per unit: about the span of a 64-bit millisecond date.
const MAX_DAYS = Math.floor(2 ** 64 / DAY_MS) + 1;
const MAX_AMOUNT: Record<TimeUnit, number> = {
  year: Math.floor(MAX_DAYS / 365) + 1,
  quarter: (Math.floor(MAX_DAYS / 365) + 1) * 4,
  month: (Math.floor(MAX_DAYS / 365) + 1) * 12,
  week: Math.floor(MAX_DAYS / 7),
  day: MAX_DAYS,
  hour: MAX_DAYS * 24,
  minute: MAX_DAYS * 1440,
  second: MAX_DAYS * 86400,
  millisecond: Infinity,
};

const MAX_DATE_MS = 8.64e15;

/**
 * `$dateAdd`: hours and smaller units are elapsed time; days and weeks keep the local wall clock
 * across DST changes; months, quarters and years also clamp the day to the target month's last
 * day (2024-01-31 + 1 month = 2024-02-29).
 *
 * @example
 * addToDate(Date.UTC(2024, 0, 31), "month", 1, UTC_ZONE); // Date.UTC(2024, 1, 29)
 */
export function addToDate(ms: number, unit: TimeUnit, amount: number, zone: Zone): number {
  if (!(Math.abs(amount) < MAX_AMOUNT[unit])) throw new EngineError(5976500, `invalid dateAdd 'amount' parameter value: ${amount} ${unit}`);
  let out: number;
  const fixed = FIXED_UNIT_MS[unit];
  if (fixed !== undefined) out = ms + amount * fixed;
  else {
    const local = ms + zone.offsetAt(ms);
    const days = Math.floor(local / DAY_MS);
    let target: number;
    if (unit === "day" || unit === "week") target = days + amount * (unit === "week" ? 7 : 1);
    else {
      const { year, month, day } = civilFromDays(days);
      const total = year * 12 + month - 1 + amount * (unit === "year" ? 12 : unit === "quarter" ? 3 : 1);
      const y = Math.floor(total / 12);
      const m = total - y * 12 + 1;
      target = daysFromCivil(y, m, Math.min(day, daysInMonth(y, m)));
    }
    out = localToInstant(target * DAY_MS + (local - days * DAY_MS), zone);
  }
  if (!(Math.abs(out) <= MAX_DATE_MS)) throw new EngineError(5166406, "dateAdd overflowed");
  return out;
}

/** Day of the week counted from `startOfWeek` (ISO day number): 0 for that day ... 6. */
function dayInWeek(days: number, startOfWeek: number): number {
  return (isoDayOfWeek(days) - startOfWeek + 7) % 7;
}

/** Unit boundaries crossed between two local times, mongod's `$dateDiff` for calendar units. */
function calendarDiff(a: LocalTime, b: LocalTime, unit: TimeUnit, startOfWeek: number): number {
  switch (unit) {
    case "year":
      return b.year - a.year;
    case "quarter":
      return Math.floor((b.month - 1) / 3) - Math.floor((a.month - 1) / 3) + (b.year - a.year) * 4;
    case "month":
      return b.month - a.month + (b.year - a.year) * 12;
    case "week":
      return Math.trunc((b.days - a.days + dayInWeek(a.days, startOfWeek) - dayInWeek(b.days, startOfWeek)) / 7);
    default:
      return b.days - a.days;
  }
}

/**
 * `$dateDiff`: the number of unit boundaries passed from `start` to `end` in the zone (for hours
 * and smaller, corrected by the change of UTC offset so DST does not count).
 *
 * @example
 * dateDiff(Date.UTC(2010, 2, 1), Date.UTC(2010, 3, 30), "month", UTC_ZONE, 7); // 1
 */
export function dateDiff(start: number, end: number, unit: TimeUnit, zone: Zone, startOfWeek: number): number {
  if (unit === "millisecond") return end - start;
  const a = toLocal(start, zone);
  const b = toLocal(end, zone);
  if (unit !== "hour" && unit !== "minute" && unit !== "second") return calendarDiff(a, b, unit, startOfWeek);
  const hours = b.hour - a.hour + (b.days - a.days) * 24;
  const offsetChange = a.offset - b.offset;
  if (unit === "hour") return hours + Math.trunc(offsetChange / HOUR_MS);
  const minutes = b.minute - a.minute + hours * 60;
  if (unit === "minute") return minutes + Math.trunc(offsetChange / MINUTE_MS);
  return b.second - a.second + minutes * 60 + Math.trunc(offsetChange / 1000);
}

/**
 * `$dateTrunc`: the start of the `binSize`-unit bin holding the date, bins counted in the zone
 * from local 2000-01-01 (for weeks, from the first `startOfWeek` day on or after it).
 *
 * @example
 * truncateDate(Date.UTC(2024, 2, 1, 2), "day", 1, parseZone("America/New_York"), 7); // 2024-02-29T05:00Z
 */
export function truncateDate(ms: number, unit: TimeUnit, binSize: number, zone: Zone, startOfWeek: number): number {
  const reference = 946684800000; // 2000-01-01T00:00:00Z, a Saturday
  let refMs = reference - zone.offsetAt(reference);
  const fixed = FIXED_UNIT_MS[unit];
  if (fixed !== undefined) {
    const bin = binSize * fixed;
    if (!(bin < 2 ** 63)) throw new EngineError(5439002, "dateTrunc overflowed");
    return ms - mod(ms - refMs, bin);
  }
  if (binSize > 100_000_000_000) throw new EngineError(5439006, "dateTrunc unsupported binSize value");
  let refDay = 1;
  if (unit === "week") {
    const shift = (7 - dayInWeek(daysFromCivil(2000, 1, 1), startOfWeek)) % 7;
    refMs += shift * DAY_MS;
    refDay += shift;
  }
  const refLocal = toLocal(daysFromCivil(2000, 1, refDay) * DAY_MS, UTC_ZONE);
  const distance = calendarDiff(refLocal, toLocal(ms, zone), unit, startOfWeek);
  return addToDate(refMs, unit, distance - mod(distance, binSize), zone);
}
