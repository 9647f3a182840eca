import { EngineError, ErrorCodes } from "../engine-error.js";
import { HOUR_MS, MINUTE_MS, UTC_ZONE, civilFromDays, dayOfWeek, dayOfYear, daysFromCivil, daysFromIsoWeekDate, daysInMonth, fromLocalParts, isoWeekDate, sundayWeek, toLocal } from "./date-calendar.js";
import type { Zone } from "./date-calendar.js";

/**
 * The strings of the date operators (date-operators.ts): `$dateToString`'s format specifiers and
 * `$dateFromString`'s parsing, with and without a format, as mongod reads them.
 */
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** Format specifiers after "%" (besides "%%") each operator accepts, as mongod's format maps. */
export const TO_STRING_SPECIFIERS: ReadonlySet<string> = new Set("bBdGHjLmMSwuUVYzZ");
export const FROM_STRING_SPECIFIERS: ReadonlySet<string> = new Set("bBdGHjLmMSuVYzZ");

/** Rejects a "%" at the end (18535) or before an unknown specifier (18536). */
export function validateFormat(format: string, allowed: ReadonlySet<string>): void {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== "%") continue;
    const spec = format[++i];
    if (spec === undefined) throw new EngineError(18535, "Unmatched '%' at end of format string");
    if (spec !== "%" && !allowed.has(spec)) throw new EngineError(18536, `Invalid format character '%${spec}' in format string`);
  }
}

function padded(n: number, width: number): string {
  if (n < 0 || n > 9999) throw new EngineError(18537, `Could not convert date to string: date component was outside the supported range of 0-9999: ${n}`);
  return String(n).padStart(width, "0");
}

/**
 * `$dateToString` of a validated format in a zone.
 *
 * @example
 * formatDate("%Y-%m-%d %U %w", Date.UTC(1998, 10, 1), UTC_ZONE); // "1998-11-01 44 1"
 */
export function formatDate(format: string, ms: number, zone: Zone): string {
  const l = toLocal(ms, zone);
  let out = "";
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch !== "%") {
      out += ch;
      continue;
    }
    const spec = format[++i];
    const offsetMinutes = Math.trunc(l.offset / MINUTE_MS);
    switch (spec) {
      case "%": out += "%"; break;
      case "Y": out += padded(l.year, 4); break;
      case "m": out += padded(l.month, 2); break;
      case "d": out += padded(l.day, 2); break;
      case "H": out += padded(l.hour, 2); break;
      case "M": out += padded(l.minute, 2); break;
      case "S": out += padded(l.second, 2); break;
      case "L": out += padded(l.millisecond, 3); break;
      case "j": out += padded(dayOfYear(l), 3); break;
      case "w": out += padded(dayOfWeek(l.days), 1); break;
      case "U": out += padded(sundayWeek(l), 2); break;
      case "G": out += padded(isoWeekDate(l.days).isoYear, 4); break;
      case "V": out += padded(isoWeekDate(l.days).isoWeek, 2); break;
      case "u": out += padded(isoWeekDate(l.days).isoDay, 1); break;
      case "b": out += MONTHS[l.month - 1]!.slice(0, 3); break;
      case "B": out += MONTHS[l.month - 1]; break;
      case "z": out += `${l.offset < 0 ? "-" : "+"}${padded(Math.floor(Math.abs(offsetMinutes) / 60), 2)}${padded(Math.abs(offsetMinutes) % 60, 2)}`; break;
      case "Z": out += String(offsetMinutes); break;
    }
  }
  return out;
}

/** What a date string gave: wall-clock fields and, when the string carries one, its UTC offset. */
interface ParsedFields {
  year?: number;
  month?: number;
  day?: number;
  dayOfYear?: number;
  isoYear?: number;
  isoWeek?: number;
  isoDay?: number;
  hour?: number;
  minute?: number;
  second?: number;
  ms?: number;
  offset?: number;
}

function conversionFailure(s: string, why: string): never {
  throw new EngineError(ErrorCodes.ConversionFailure, `Error parsing date string '${s}'; ${why}`);
}

/** "Z", "UTC", "GMT", "±hh", "±hhmm" or "±hh:mm" → milliseconds east of UTC. */
function zoneOffset(s: string): number | undefined {
  if (s === "Z" || s === "z" || s === "UTC" || s === "GMT") return 0;
  const m = /^([+-])(\d\d):?(\d\d)?$/.exec(s);
  return m === null ? undefined : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * HOUR_MS + Number(m[3] ?? 0) * MINUTE_MS);
}

function monthByName(name: string, full: boolean): number | undefined {
  const i = MONTHS.findIndex((m) => (full ? m.toLowerCase() === name.toLowerCase() : m.slice(0, 3).toLowerCase() === name.toLowerCase()));
  return i === -1 ? undefined : i + 1;
}

const DATE_FORMS: readonly [RegExp, (m: RegExpExecArray) => ParsedFields | undefined][] = [
  [/^(\d{4})-(\d{1,2})-(\d{1,2})/, (m) => ({ year: +m[1]!, month: +m[2]!, day: +m[3]! })],
  [/^(\d{4})\/(\d{1,2})\/(\d{1,2})/, (m) => ({ year: +m[1]!, month: +m[2]!, day: +m[3]! })],
  [/^(\d{1,2})\/(\d{1,2})\/(\d{4})/, (m) => ({ year: +m[3]!, month: +m[1]!, day: +m[2]! })],
  [/^([A-Za-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})/, (m) => month3(m[1]!, { year: +m[3]!, day: +m[2]! })],
  [/^(\d{1,2})[ -]([A-Za-z]+)\.?[ -](\d{4})/, (m) => month3(m[2]!, { year: +m[3]!, day: +m[1]! })],
];

function month3(name: string, f: ParsedFields): ParsedFields | undefined {
  const month = monthByName(name, true) ?? (name.length === 3 ? monthByName(name, false) : undefined);
  return month === undefined ? undefined : { ...f, month };
}

/** The formats `$dateFromString` reads without a `format` (a subset of timelib's): ISO 8601 dates and times with an optional offset, "2024/03/01", "03/01/2024", "March 1, 2024", "1 March 2024". */
function parseFree(s: string): ParsedFields {
  const text = s.trim();
  for (const [re, read] of DATE_FORMS) {
    const m = re.exec(text);
    if (m === null) continue;
    const date = read(m);
    if (date === undefined) break;
    const rest = /^(?:[Tt]| +)?(?:(\d{1,2}):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?)? *([A-Za-z]+|[+-][\d:]+)?$/.exec(text.slice(m[0].length));
    if (rest === null) break;
    const [, h, mi, sec, frac, zone] = rest;
    const out: ParsedFields = { ...date };
    if (h !== undefined) Object.assign(out, { hour: +h, minute: +mi!, second: +(sec ?? 0), ms: Math.floor(Number(`0.${frac ?? 0}`) * 1000 + 1e-9) });
    if (zone !== undefined) {
      const offset = zoneOffset(zone);
      if (offset === undefined) conversionFailure(s, "the timezone could not be found in the database");
      out.offset = offset;
    }
    return out;
  }
  return conversionFailure(s, "the string is not a date in a supported format");
}

/** Reads a string by a validated `$dateFromString` format, as timelib's parse_from_format. */
function parseFormatted(s: string, format: string): ParsedFields {
  const out: ParsedFields = {};
  let p = 0;
  const digits = (max: number, exact: number | undefined, what: string): number => {
    const m = new RegExp(`^\\d{1,${max}}`).exec(s.slice(p));
    if (m === null || (exact !== undefined && m[0].length !== exact)) conversionFailure(s, `${p}: ${what} could not be found`);
    p += m[0].length;
    return Number(m[0]);
  };
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch !== "%" || format[i + 1] === "%") {
      if (s[p] !== ch) conversionFailure(s, `${p}: The format separator does not match`);
      p++;
      if (ch === "%") i++;
      continue;
    }
    const spec = format[++i]!;
    switch (spec) {
      case "Y": out.year = digits(4, 4, "A four digit year"); break;
      case "G": out.isoYear = digits(4, 4, "A four digit ISO year"); break;
      case "m": out.month = digits(2, undefined, "A two digit month"); break;
      case "d": out.day = digits(2, undefined, "A two digit day"); break;
      case "H": out.hour = digits(2, undefined, "A two digit hour"); break;
      case "M": out.minute = digits(2, undefined, "A two digit minute"); break;
      case "S": out.second = digits(2, undefined, "A two digit second"); break;
      case "L": out.ms = digits(3, 3, "A three digit millisecond"); break;
      case "j": out.dayOfYear = digits(3, 3, "A three digit day-of-year"); break;
      case "V": out.isoWeek = digits(2, undefined, "A two digit ISO week"); break;
      case "u": out.isoDay = digits(1, 1, "A single digit day of week"); break;
      case "b":
      case "B": {
        const m = /^[A-Za-z]+/.exec(s.slice(p));
        const month = m === null ? undefined : monthByName(spec === "b" ? m[0].slice(0, 3) : m[0], spec === "B");
        if (month === undefined) conversionFailure(s, `${p}: A textual month could not be found`);
        p += spec === "b" ? 3 : m![0].length;
        out.month = month;
        break;
      }
      case "z": {
        const m = /^(?:[Zz]|UTC|GMT|[+-]\d\d(?::?\d\d)?)/.exec(s.slice(p));
        if (m === null) conversionFailure(s, `${p}: The timezone could not be found in the database`);
        p += m[0].length;
        out.offset = zoneOffset(m[0]);
        break;
      }
      case "Z": {
        const m = /^[+-]?\d+/.exec(s.slice(p));
        if (m === null) conversionFailure(s, `${p}: A minutes offset could not be found`);
        p += m[0].length;
        out.offset = Number(m[0]) * MINUTE_MS;
        break;
      }
    }
  }
  if (p < s.length) conversionFailure(s, `${p}: Trailing data`);
  if (out.isoYear !== undefined) {
    const { year, month, day } = civilFromDays(daysFromIsoWeekDate(out.isoYear, out.isoWeek ?? 1, out.isoDay ?? 1));
    Object.assign(out, { year, month, day });
  } else if (out.dayOfYear !== undefined && out.year !== undefined) {
    Object.assign(out, civilFromDays(daysFromCivil(out.year, 1, 1) + out.dayOfYear - 1));
  }
  return out;
}

/**
 * `$dateFromString`: the instant of a date string, read by `format` (validated) or, without one,
 * in the ISO-like forms of {@link parseFree}. A string that carries an offset may not be combined
 * with a timezone other than UTC. Every failure is ConversionFailure (241), which `onError` catches.
 *
 * @example
 * parseDateString("2024-03-01T10:00:00+02:00", undefined, UTC_ZONE); // Date.UTC(2024, 2, 1, 8)
 */
export function parseDateString(s: string, format: string | undefined, zone: Zone): number {
  const f = format === undefined ? parseFree(s) : parseFormatted(s, format);
  if (f.hour !== undefined || f.minute !== undefined || f.second !== undefined || f.ms !== undefined) {
    f.hour ??= 0;
    f.minute ??= 0;
    f.second ??= 0;
  }
  if (f.year === undefined || f.month === undefined || f.day === undefined) {
    throw new EngineError(ErrorCodes.ConversionFailure, `an incomplete date/time string has been found, with elements missing: "${s}"`);
  }
  const { year, month, day, hour = 0, minute = 0, second = 0, ms = 0 } = f;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) conversionFailure(s, "The parsed date was invalid");
  if (hour > 23 || minute > 59 || second > 59) conversionFailure(s, "The parsed time was invalid");
  if (f.offset !== undefined && !zone.isUtc) {
    throw new EngineError(ErrorCodes.ConversionFailure, "you cannot pass in a date/time string with time zone information and a timezone argument at the same time");
  }
  const target: Zone = f.offset === undefined ? zone : { isUtc: f.offset === 0, offsetAt: () => f.offset! };
  return fromLocalParts(year, month, day, hour, minute, second, ms, target);
}
