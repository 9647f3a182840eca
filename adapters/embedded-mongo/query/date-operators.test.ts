import test from "ava";
import type { ExecutionContext } from "ava";
import { MongoServerError, Timestamp } from "mongodb";
import type { Document } from "mongodb";
import { useFileEngine } from "../test-support/file-engine.js";

// Every expectation here is MongoDB 7.0's documented behaviour, checked through the driver.
const shared = useFileEngine(test, "dates");

/** Evaluates expressions against one document (`$documents`), returning `{name: value}`. */
async function evaluate(fields: Record<string, unknown>, doc: Document = {}): Promise<Document> {
  const db = shared.client.db(shared.freshDb("eval"));
  const [out] = await db.aggregate([{ $documents: [doc] }, { $project: { _id: 0, ...fields } }]).toArray();
  return out!;
}

async function errorCode(t: ExecutionContext, expr: unknown, doc: Document = {}): Promise<number | undefined> {
  const err = await t.throwsAsync(evaluate({ v: expr }, doc));
  t.true(err instanceof MongoServerError, String(err));
  return (err as MongoServerError).code as number | undefined;
}

const d = (iso: string) => new Date(iso);

test("date parts of a null or missing date are null, in both argument forms", async (t) => {
  const out = await evaluate(
    {
      year: { $year: "$nope" },
      month: { $month: "$n" },
      hour: { $hour: ["$nope"] },
      dow: { $dayOfWeek: "$nope" },
      isoWeek: { $isoWeek: "$n" },
      tzForm: { $year: { date: "$nope", timezone: "UTC" } },
      nullZone: { $month: { date: "$d", timezone: "$nope" } },
    },
    { n: null, d: d("2024-03-01T10:00:00Z") },
  );
  t.deepEqual(out, { year: null, month: null, hour: null, dow: null, isoWeek: null, tzForm: null, nullZone: null });
});

test("grouping by month counts documents without the date under null", async (t) => {
  const c = shared.client.db(shared.freshDb("group")).collection("sales");
  await c.insertMany([{ at: d("2024-03-01T10:00:00Z") }, { at: d("2024-03-09T10:00:00Z") }, {}, { at: null }]);
  const groups = await c.aggregate([{ $group: { _id: { $month: "$at" }, n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray();
  t.deepEqual(groups, [{ _id: null, n: 2 }, { _id: 3, n: 2 }]);
});

test("date parts in UTC, in a timezone and from a Timestamp or ObjectId", async (t) => {
  const at = d("2024-03-01T02:03:04.005Z");
  const out = await evaluate({
    year: { $year: at },
    month: { $month: at },
    day: { $dayOfMonth: at },
    hour: { $hour: at },
    minute: { $minute: at },
    second: { $second: at },
    ms: { $millisecond: at },
    doy: { $dayOfYear: d("2024-12-31T00:00:00Z") },
    nyMonth: { $month: { date: at, timezone: "America/New_York" } },
    nyDay: { $dayOfMonth: { date: at, timezone: "America/New_York" } },
    offsetHour: { $hour: { date: at, timezone: "+05:30" } },
    offsetMinute: { $minute: { date: at, timezone: "+0530" } },
    offsetShort: { $hour: { date: at, timezone: "-03" } },
    kiritimati: { $dayOfWeek: { date: d("2024-03-01T10:00:00Z"), timezone: "Pacific/Kiritimati" } },
    fromObjectId: { $year: { $toObjectId: "65e1371000000000000000aa" } },
  });
  t.deepEqual(out, {
    year: 2024,
    month: 3,
    day: 1,
    hour: 2,
    minute: 3,
    second: 4,
    ms: 5,
    doy: 366,
    nyMonth: 2,
    nyDay: 29,
    offsetHour: 7,
    offsetMinute: 33,
    offsetShort: 23,
    kiritimati: 7,
    fromObjectId: 2024,
  });
});

test("$week counts Sunday-started weeks from 0; ISO weeks belong to the year of their Thursday", async (t) => {
  const out = await evaluate({
    w1998: { $week: d("1998-11-01T00:00:00Z") },
    w2016: { $week: d("2016-01-01T00:00:00Z") },
    w20160103: { $week: d("2016-01-03T00:00:00Z") },
    chicago: { $week: { date: d("2011-08-14T04:00:00Z"), timezone: "America/Chicago" } },
    dowSunday: { $dayOfWeek: d("2024-01-07T10:00:00Z") },
    isoWeek: { $isoWeek: d("2021-01-01T00:00:00Z") },
    isoWeekYear: { $isoWeekYear: d("2021-01-01T00:00:00Z") },
    isoDay: { $isoDayOfWeek: d("2021-01-03T00:00:00Z") },
    isoWeek2020: { $isoWeek: d("2019-12-30T00:00:00Z") },
    isoYear2020: { $isoWeekYear: d("2019-12-30T00:00:00Z") },
  });
  t.deepEqual(out, { w1998: 44, w2016: 0, w20160103: 1, chicago: 32, dowSunday: 1, isoWeek: 53, isoWeekYear: 2020, isoDay: 7, isoWeek2020: 1, isoYear2020: 2020 });
});

test("date parts reject a non-date and an unknown timezone", async (t) => {
  t.is(await errorCode(t, { $year: "2024-03-01" }), 16006);
  t.is(await errorCode(t, { $year: { date: d("2024-03-01T00:00:00Z"), timezone: "Mars/Olympus" } }), 40485);
  t.is(await errorCode(t, { $year: { date: d("2024-03-01T00:00:00Z"), timezone: 5 } }), 40517);
  t.is(await errorCode(t, { $year: { date: d("2024-03-01T00:00:00Z"), zone: "UTC" } }), 40535);
  t.is(await errorCode(t, { $year: [d("2024-03-01T00:00:00Z"), 1] }), 40536);
});

test("$dateAdd and $dateSubtract clamp to the month's last day and keep the wall clock in a timezone", async (t) => {
  const out = await evaluate({
    eom: { $dateAdd: { startDate: d("2024-01-31T00:00:00Z"), unit: "month", amount: 1 } },
    manual: { $dateAdd: { startDate: d("2020-10-31T12:10:05Z"), unit: "month", amount: 1 } },
    leapYear: { $dateAdd: { startDate: d("2024-02-29T00:00:00Z"), unit: "year", amount: 1 } },
    quarter: { $dateAdd: { startDate: d("2024-11-30T00:00:00Z"), unit: "quarter", amount: 1 } },
    subtractMonth: { $dateSubtract: { startDate: d("2024-03-31T00:00:00Z"), unit: "month", amount: 1 } },
    hours: { $dateAdd: { startDate: d("2024-03-01T10:00:00Z"), unit: "hour", amount: -3 } },
    integralDouble: { $dateAdd: { startDate: d("2024-03-01T10:00:00Z"), unit: "day", amount: 2.0 } },
    // 2024-03-10 is the spring-forward day in New York: one local day is 23 hours there.
    dstDay: { $dateAdd: { startDate: d("2024-03-09T17:00:00Z"), unit: "day", amount: 1, timezone: "America/New_York" } },
    dstHours: { $dateAdd: { startDate: d("2024-03-09T17:00:00Z"), unit: "hour", amount: 24, timezone: "America/New_York" } },
    fromTimestamp: { $dateAdd: { startDate: new Timestamp({ t: 1709251200, i: 1 }), unit: "second", amount: 1 } },
  });
  t.deepEqual(out, {
    eom: d("2024-02-29T00:00:00Z"),
    manual: d("2020-11-30T12:10:05Z"),
    leapYear: d("2025-02-28T00:00:00Z"),
    quarter: d("2025-02-28T00:00:00Z"),
    subtractMonth: d("2024-02-29T00:00:00Z"),
    hours: d("2024-03-01T07:00:00Z"),
    integralDouble: d("2024-03-03T10:00:00Z"),
    dstDay: d("2024-03-10T16:00:00Z"),
    dstHours: d("2024-03-10T17:00:00Z"),
    fromTimestamp: d("2024-03-01T00:00:01Z"),
  });
});

test("$dateAdd is null for a null start, unit, amount or timezone and refuses bad ones", async (t) => {
  const at = d("2024-03-01T10:00:00Z");
  const out = await evaluate({
    start: { $dateAdd: { startDate: "$nope", unit: "day", amount: 1 } },
    unit: { $dateAdd: { startDate: at, unit: null, amount: 1 } },
    amount: { $dateAdd: { startDate: at, unit: "day", amount: null } },
    zone: { $dateSubtract: { startDate: at, unit: "day", amount: 1, timezone: "$nope" } },
  });
  t.deepEqual(out, { start: null, unit: null, amount: null, zone: null });
  t.is(await errorCode(t, { $dateAdd: { startDate: at, unit: "fortnight", amount: 1 } }), 9);
  t.is(await errorCode(t, { $dateAdd: { startDate: at, unit: "day", amount: 1.5 } }), 5166405);
  t.is(await errorCode(t, { $dateAdd: { startDate: "2024-03-01", unit: "day", amount: 1 } }), 5166403);
});

test("$dateTrunc finds the bin boundary in the timezone, with binSize and startOfWeek", async (t) => {
  const out = await evaluate({
    dayNY: { $dateTrunc: { date: d("2024-03-01T02:00:00Z"), unit: "day", timezone: "America/New_York" } },
    monthNY: { $dateTrunc: { date: d("2024-03-01T02:00:00Z"), unit: "month", timezone: "America/New_York" } },
    yearNY: { $dateTrunc: { date: d("2024-01-01T02:00:00Z"), unit: "year", timezone: "America/New_York" } },
    hour1: { $dateTrunc: { date: d("2021-03-20T11:30:05Z"), unit: "hour" } },
    hour2: { $dateTrunc: { date: d("2021-03-20T11:30:05Z"), unit: "hour", binSize: 2 } },
    years10: { $dateTrunc: { date: d("2019-06-01T00:00:00Z"), unit: "year", binSize: 10 } },
    months6: { $dateTrunc: { date: d("2021-03-20T11:30:05Z"), unit: "month", binSize: 6 } },
    quarter: { $dateTrunc: { date: d("2021-05-20T11:30:05Z"), unit: "quarter" } },
    week: { $dateTrunc: { date: d("2024-03-01T10:00:00Z"), unit: "week" } },
    // The manual's example: two-week bins starting on Monday in Los Angeles.
    weeks2: { $dateTrunc: { date: d("2020-05-18T14:10:30Z"), unit: "week", binSize: 2, timezone: "America/Los_Angeles", startOfWeek: "Monday" } },
    weeks2b: { $dateTrunc: { date: d("2021-01-11T06:31:15Z"), unit: "week", binSize: 2, timezone: "America/Los_Angeles", startOfWeek: "mon" } },
    missing: { $dateTrunc: { date: "$nope", unit: "day" } },
    nullStartOfWeek: { $dateTrunc: { date: d("2024-03-01T10:00:00Z"), unit: "week", startOfWeek: null } },
  });
  t.deepEqual(out, {
    dayNY: d("2024-02-29T05:00:00Z"),
    monthNY: d("2024-02-01T05:00:00Z"),
    yearNY: d("2023-01-01T05:00:00Z"),
    hour1: d("2021-03-20T11:00:00Z"),
    hour2: d("2021-03-20T10:00:00Z"),
    years10: d("2010-01-01T00:00:00Z"),
    months6: d("2021-01-01T00:00:00Z"),
    quarter: d("2021-04-01T00:00:00Z"),
    week: d("2024-02-25T00:00:00Z"),
    weeks2: d("2020-05-11T07:00:00Z"),
    weeks2b: d("2021-01-04T08:00:00Z"),
    missing: null,
    nullStartOfWeek: null,
  });
});

test("$dateDiff counts unit boundaries passed, as a 64-bit integer", async (t) => {
  const diff = (startDate: Date, endDate: Date, unit: string, extra: Document = {}) => ({ $dateDiff: { startDate, endDate, unit, ...extra } });
  const out = await evaluate({
    years: diff(d("2010-01-01"), d("2011-07-01"), "year"),
    months: diff(d("2010-01-01"), d("2011-07-01"), "month"),
    days: diff(d("2010-01-01"), d("2011-07-01"), "day"),
    oneMonth: diff(d("2010-03-01"), d("2010-04-30"), "month"),
    sixtyDays: diff(d("2010-03-01"), d("2010-04-30"), "day"),
    weeksJan: diff(d("2021-01-01"), d("2021-01-31"), "week"),
    weeksJanMonday: diff(d("2021-01-01"), d("2021-01-31"), "week", { startOfWeek: "Monday" }),
    weeksFebFriday: diff(d("2021-02-01"), d("2021-02-28"), "week", { startOfWeek: "fri" }),
    negative: diff(d("2021-02-01"), d("2021-01-01"), "day"),
    hours: diff(d("2020-11-01T18:23:36Z"), d("2020-11-01T20:00:00Z"), "hour"),
    // 2024-03-10 in New York is 23 hours long: one day, 23 hours.
    dstDay: diff(d("2024-03-09T12:00:00Z"), d("2024-03-11T03:00:00Z"), "day", { timezone: "America/New_York" }),
    dstHours: diff(d("2024-03-10T05:00:00Z"), d("2024-03-11T04:00:00Z"), "hour", { timezone: "America/New_York" }),
    ms: diff(d("2024-03-01T00:00:00Z"), d("2024-03-01T00:00:01.5Z"), "millisecond"),
    missing: { $dateDiff: { startDate: "$nope", endDate: d("2024-03-01"), unit: "day" } },
  });
  t.deepEqual(out, {
    years: 1,
    months: 18,
    days: 546,
    oneMonth: 1,
    sixtyDays: 60,
    weeksJan: 5,
    weeksJanMonday: 4,
    weeksFebFriday: 4,
    negative: -31,
    hours: 2,
    dstDay: 1,
    dstHours: 23,
    ms: 1500,
    missing: null,
  });
  const db = shared.client.db(shared.freshDb("long"));
  const [typed] = await db.aggregate([{ $documents: [{}] }, { $project: { _id: 0, v: diff(d("2010-01-01"), d("2011-01-01"), "day") } }], { promoteLongs: false }).toArray();
  t.is((typed!.v as { _bsontype?: string })._bsontype, "Long");
  t.is(await errorCode(t, { $dateDiff: { startDate: "2024", endDate: d("2024-03-01"), unit: "day" } }), 5166307);
});

test("$dateToParts and $dateFromParts, natural and ISO 8601, in a timezone", async (t) => {
  const at = d("2017-01-01T01:29:09.123Z");
  const out = await evaluate({
    parts: { $dateToParts: { date: at } },
    nyParts: { $dateToParts: { date: at, timezone: "America/New_York" } },
    isoParts: { $dateToParts: { date: at, iso8601: true } },
    missing: { $dateToParts: { date: "$nope" } },
    nullIso: { $dateToParts: { date: at, iso8601: null } },
    fromParts: { $dateFromParts: { year: 2017, month: 2, day: 8, hour: 12 } },
    rolled: { $dateFromParts: { year: 2016, month: 14, day: 1, hour: 0, minute: 0, second: 0 } },
    dayZero: { $dateFromParts: { year: 2024, month: 3, day: 0 } },
    fromIso: { $dateFromParts: { isoWeekYear: 2017, isoWeek: 6, isoDayOfWeek: 3, hour: 12 } },
    inZone: { $dateFromParts: { year: 2016, month: 12, day: 31, hour: 23, minute: 46, second: 12, timezone: "America/New_York" } },
    inOffset: { $dateFromParts: { year: 2017, month: 2, day: 8, timezone: "+0530" } },
    missingPart: { $dateFromParts: { year: "$nope" } },
    nullZone: { $dateFromParts: { year: 2024, timezone: null } },
  });
  t.deepEqual(out, {
    parts: { year: 2017, month: 1, day: 1, hour: 1, minute: 29, second: 9, millisecond: 123 },
    nyParts: { year: 2016, month: 12, day: 31, hour: 20, minute: 29, second: 9, millisecond: 123 },
    isoParts: { isoWeekYear: 2016, isoWeek: 52, isoDayOfWeek: 7, hour: 1, minute: 29, second: 9, millisecond: 123 },
    missing: null,
    nullIso: null,
    fromParts: d("2017-02-08T12:00:00Z"),
    rolled: d("2017-02-01T00:00:00Z"),
    dayZero: d("2024-02-29T00:00:00Z"),
    fromIso: d("2017-02-08T12:00:00Z"),
    inZone: d("2017-01-01T04:46:12Z"),
    inOffset: d("2017-02-07T18:30:00Z"),
    missingPart: null,
    nullZone: null,
  });
  t.is(await errorCode(t, { $dateFromParts: { year: 10000 } }), 40523);
  t.is(await errorCode(t, { $dateFromParts: { year: 2024, month: 1.5 } }), 40515);
  t.is(await errorCode(t, { $dateFromParts: { year: 2024, isoWeek: 2 } }), 40489);
  t.is(await errorCode(t, { $dateFromParts: { month: 2 } }), 40516);
  t.is(await errorCode(t, { $dateToParts: { date: "2024" } }), 16006);
});

test("$dateToString: every format specifier, the default format, timezones and onNull", async (t) => {
  const at = d("2014-01-01T08:15:39.736Z");
  const out = await evaluate({
    ymd: { $dateToString: { format: "%Y-%m-%d", date: at } },
    ny: { $dateToString: { format: "%H:%M:%S:%L%z", date: at, timezone: "America/New_York" } },
    offset: { $dateToString: { format: "%H:%M:%S:%L%z", date: at, timezone: "+04:30" } },
    minutesNY: { $dateToString: { format: "%Z", date: at, timezone: "America/New_York" } },
    minutes430: { $dateToString: { format: "%Z", date: at, timezone: "+04:30" } },
    weeks: { $dateToString: { format: "%U %w %u %V %G %j %%", date: d("1998-11-01T00:00:00Z") } },
    isoYear: { $dateToString: { format: "%G-W%V-%u", date: d("2021-01-01T00:00:00Z") } },
    saturday: { $dateToString: { format: "%w", date: d("2024-01-06T10:00:00Z") } },
    dflt: { $dateToString: { date: at } },
    dfltZone: { $dateToString: { date: at, timezone: "+05:30" } },
    missing: { $dateToString: { date: "$nope" } },
    onNull: { $dateToString: { date: "$nope", onNull: "none" } },
    nullZone: { $dateToString: { date: at, timezone: null } },
  });
  t.deepEqual(out, {
    ymd: "2014-01-01",
    ny: "03:15:39:736-0500",
    offset: "12:45:39:736+0430",
    minutesNY: "-300",
    minutes430: "270",
    weeks: "44 1 7 44 1998 305 %",
    isoYear: "2020-W53-5",
    saturday: "7",
    dflt: "2014-01-01T08:15:39.736Z",
    dfltZone: "2014-01-01T13:45:39.736",
    missing: null,
    onNull: "none",
    nullZone: null,
  });
  t.is(await errorCode(t, { $dateToString: { date: at, format: "%Q" } }), 18536);
  t.is(await errorCode(t, { $dateToString: { date: "2014-01-01" } }), 16006);
});

test("$dateFromString reads offsets and space-separated times; unparseable strings are ConversionFailure unless onError", async (t) => {
  const out = await evaluate({
    noZone: { $dateFromString: { dateString: "2017-02-08T12:10:40.787" } },
    inZone: { $dateFromString: { dateString: "2017-02-08T12:10:40.787", timezone: "America/New_York" } },
    dateOnly: { $dateFromString: { dateString: "2017-02-08" } },
    dateOnlyOffset: { $dateFromString: { dateString: "2017-02-08", timezone: "-05:00" } },
    usFormat: { $dateFromString: { dateString: "06-15-2018", format: "%m-%d-%Y" } },
    euFormat: { $dateFromString: { dateString: "15-06-2018", format: "%d-%m-%Y" } },
    colonOffset: { $dateFromString: { dateString: "2024-03-01T10:00:00+02:00" } },
    offset: { $dateFromString: { dateString: "2024-03-01T10:00:00+0200" } },
    msOffset: { $dateFromString: { dateString: "2024-03-01T10:00:00.000-05:00" } },
    space: { $dateFromString: { dateString: "2024-03-01 10:00:00" } },
    zulu: { $dateFromString: { dateString: "2024-03-01T10:00:00Z" } },
    formatZone: { $dateFromString: { dateString: "2024-03-01 10:00 +0530", format: "%Y-%m-%d %H:%M %z" } },
    onError: { $dateFromString: { dateString: "20177-02-09T03:35:02.055", onError: "$s" } },
    badFormat: { $dateFromString: { dateString: "2024-13-01", format: "%Y-%m-%d", onError: "bad" } },
    onNull: { $dateFromString: { dateString: "$nope", onNull: new Date(0) } },
    missing: { $dateFromString: { dateString: "$nope" } },
  }, { s: "20177-02-09T03:35:02.055" });
  t.deepEqual(out, {
    noZone: d("2017-02-08T12:10:40.787Z"),
    inZone: d("2017-02-08T17:10:40.787Z"),
    dateOnly: d("2017-02-08T00:00:00Z"),
    dateOnlyOffset: d("2017-02-08T05:00:00Z"),
    usFormat: d("2018-06-15T00:00:00Z"),
    euFormat: d("2018-06-15T00:00:00Z"),
    colonOffset: d("2024-03-01T08:00:00Z"),
    offset: d("2024-03-01T08:00:00Z"),
    msOffset: d("2024-03-01T15:00:00Z"),
    space: d("2024-03-01T10:00:00Z"),
    zulu: d("2024-03-01T10:00:00Z"),
    formatZone: d("2024-03-01T04:30:00Z"),
    onError: "20177-02-09T03:35:02.055",
    badFormat: "bad",
    onNull: d("1970-01-01T00:00:00Z"),
    missing: null,
  });
  t.is(await errorCode(t, { $dateFromString: { dateString: "not a date" } }), 241);
  t.is(await errorCode(t, { $dateFromString: { dateString: "2024-03-01T10:00:00Z", timezone: "America/New_York" } }), 241);
  t.is(await errorCode(t, { $dateFromString: { dateString: "2024-03-01", format: "%Y-%m-%d %Q" } }), 18536);
});

/** A deterministic pseudo-random generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let r = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

// Independent references: JavaScript's own UTC calendar, and strftime's/ISO 8601's definitions.
function isoWeekOf(date: Date): { week: number; year: number } {
  const day = date.getUTCDay() || 7;
  const thursday = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 4 - day));
  const year = thursday.getUTCFullYear();
  return { week: Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / 86_400_000 / 7) + 1, year };
}

function addMonthsClamped(date: Date, months: number): Date {
  const target = date.getUTCMonth() + months;
  const year = date.getUTCFullYear() + Math.floor(target / 12);
  const month = ((target % 12) + 12) % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const out = new Date(date.getTime());
  out.setUTCFullYear(year, month, Math.min(date.getUTCDate(), last));
  return out;
}

test("date parts, $dateToString, month arithmetic and day truncation agree with independent references on 2,000 random instants", async (t) => {
  const random = seeded(20261128);
  const edges = ["1600-02-29T23:59:59.999Z", "1900-03-01T00:00:00Z", "2000-12-31T12:00:00Z", "2021-01-01T00:00:00Z", "2024-01-31T08:00:00Z", "2100-02-28T00:00:00.001Z"].map(d);
  const dates = [...edges, ...Array.from({ length: 2_000 - edges.length }, () => new Date(Date.UTC(1600, 0, 1) + Math.floor(random() * (Date.UTC(2400, 0, 1) - Date.UTC(1600, 0, 1)))))];
  const months = dates.map(() => Math.floor(random() * 49) - 24);
  const db = shared.client.db(shared.freshDb("references"));
  const rows = await db
    .aggregate([
      { $documents: dates.map((at, i) => ({ i, at, months: months[i] })) },
      {
        $project: {
          _id: 0,
          i: 1,
          parts: [{ $year: "$at" }, { $month: "$at" }, { $dayOfMonth: "$at" }, { $hour: "$at" }, { $minute: "$at" }, { $second: "$at" }, { $millisecond: "$at" }],
          dayOfWeek: { $dayOfWeek: "$at" },
          dayOfYear: { $dayOfYear: "$at" },
          isoDayOfWeek: { $isoDayOfWeek: "$at" },
          isoWeek: { $isoWeek: "$at" },
          isoWeekYear: { $isoWeekYear: "$at" },
          week: { $week: "$at" },
          iso: { $dateToString: { date: "$at", format: "%Y-%m-%dT%H:%M:%S.%LZ" } },
          shiftedHour: { $hour: { date: "$at", timezone: "+05:30" } },
          shiftedDay: { $dayOfMonth: { date: "$at", timezone: "+05:30" } },
          added: { $dateAdd: { startDate: "$at", unit: "month", amount: "$months" } },
          day: { $dateTrunc: { date: "$at", unit: "day" } },
        },
      },
    ])
    .toArray();
  t.is(rows.length, dates.length);
  let checked = 0;
  for (const row of rows) {
    const at = dates[row["i"] as number]!;
    const label = at.toISOString();
    const yearStart = Date.UTC(at.getUTCFullYear(), 0, 1);
    const dayOfYear = Math.floor((at.getTime() - yearStart) / 86_400_000) + 1;
    const shifted = new Date(at.getTime() + 5.5 * 3_600_000);
    const expected = {
      parts: [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate(), at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds(), at.getUTCMilliseconds()],
      dayOfWeek: at.getUTCDay() + 1,
      dayOfYear,
      isoDayOfWeek: at.getUTCDay() || 7,
      isoWeek: isoWeekOf(at).week,
      isoWeekYear: isoWeekOf(at).year,
      // strftime %U: weeks start on Sunday; days before the year's first Sunday are week 0.
      week: Math.floor((dayOfYear - 1 + 7 - at.getUTCDay()) / 7),
      iso: at.toISOString(),
      shiftedHour: shifted.getUTCHours(),
      shiftedDay: shifted.getUTCDate(),
      added: addMonthsClamped(at, months[row["i"] as number]!).toISOString(),
      day: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())).toISOString(),
    };
    const actual = { ...row, isoWeekYear: Number(row["isoWeekYear"]), added: (row["added"] as Date).toISOString(), day: (row["day"] as Date).toISOString() };
    delete (actual as Document)["i"];
    t.deepEqual(actual, expected, label);
    checked++;
  }
  t.is(checked, dates.length);
});
