import test from "ava";
import type { ExecutionContext } from "ava";
import { MongoServerError } from "mongodb";
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
