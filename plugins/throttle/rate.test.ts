import test from "ava";
import { ThrottleErrors } from "./errors.js";
import { parseRate, parseThrottleRate } from "./rate.js";

test("rates read as count per period, the period a unit with an optional multiple", (t) => {
  const cases: Array<[string, number, number]> = [
    ["30/minute", 30, 60],
    ["30/minutes", 30, 60],
    ["30/m", 30, 60],
    ["100/15m", 100, 900],
    ["5/10s", 5, 10],
    ["5/sec", 5, 1],
    ["2/hours", 2, 3600],
    ["1000/day", 1000, 86_400],
    ["1000 / 2 Days", 1000, 172_800],
  ];
  for (const [rate, points, seconds] of cases) t.deepEqual(parseRate(rate, "test"), { points, seconds }, rate);
});

test("anything else is THROTTLE_INVALID_RATE naming where it was set", (t) => {
  for (const rate of ["", "30", "30/", "/minute", "0/minute", "-1/minute", "1.5/minute", "30/0m", "30/fortnight", "5/ms", "30/minute/user", 30, null, { points: 30 }]) {
    const error = t.throws(() => parseRate(rate, "reports"), undefined, JSON.stringify(rate));
    t.is((error as { code?: string }).code, ThrottleErrors.INVALID_RATE.code);
    t.true(error.message.startsWith("reports: "), error.message);
  }
});

test("a plain rate is every caller's; the object form limits only the kinds it names", (t) => {
  t.deepEqual(parseThrottleRate("10/minute", "x"), { user: { points: 10, seconds: 60 }, anonymous: { points: 10, seconds: 60 } });
  t.deepEqual(parseThrottleRate({ anonymous: "1/hour" }, "x"), { user: undefined, anonymous: { points: 1, seconds: 3600 } });
  const error = t.throws(() => parseThrottleRate({ user: "1/s", admin: "9/s" } as never, "x"));
  t.is((error as { code?: string }).code, ThrottleErrors.INVALID_RATE.code);
  t.regex(t.throws(() => parseThrottleRate({ user: "1/fortnight" }, "x")).message, /^x\.user: /);
});
