import type { ConformanceTest } from "./conformance-test.js";
import type { ErrorTracker } from "../../contracts/error-tracker.js";

/** What a conformance run can observe of an adapter (when it can observe anything). */
export interface ObservedException {
  message?: string;
  requestId?: string;
  appVersion?: string;
  userId?: string;
}

export interface ErrorTrackerUnderTest {
  tracker: ErrorTracker;
  /** The reports that reached the adapter's backend, after a flush; absent for a no-op adapter. */
  observed?: () => Promise<ObservedException[]>;
}

/**
 * The shared suite every error-tracker adapter passes: capture never throws (whatever is thrown
 * at it), flush and close resolve to booleans, captures after close are dropped, and observable
 * adapters deliver the request id, `app_version` and user id.
 *
 * @example
 * errorTrackerConformance(test, "in-memory", () => { const t = new InMemoryErrorTracker(); return { tracker: t, observed: ... }; });
 */
export function errorTrackerConformance(test: ConformanceTest, name: string, create: () => ErrorTrackerUnderTest | Promise<ErrorTrackerUnderTest>): void {
  test(`${name}: captureException accepts any thrown value without throwing`, async (t) => {
    const { tracker } = await create();
    t.teardown(() => tracker.close());
    for (const value of [new Error("boom"), "a string", undefined, null, { weird: true }, 42]) {
      t.notThrows(() => tracker.captureException(value));
      t.notThrows(() => tracker.captureException(value, { requestId: "r", tags: { a: "b" }, extra: { x: 1 } }));
    }
  });

  test(`${name}: captureLog accepts every level`, async (t) => {
    const { tracker } = await create();
    t.teardown(() => tracker.close());
    for (const level of ["debug", "info", "warn", "error"] as const) {
      t.notThrows(() => tracker.captureLog({ level, message: `a ${level} line`, attributes: { requestId: "r-1", n: 1, ok: true } }));
    }
  });

  test(`${name}: flush and close resolve to booleans and close is idempotent`, async (t) => {
    const { tracker } = await create();
    t.is(typeof (await tracker.flush(1000)), "boolean");
    t.is(typeof (await tracker.close(1000)), "boolean");
    t.is(typeof (await tracker.close(1000)), "boolean");
    t.notThrows(() => tracker.captureException(new Error("after close")));
  });

  test(`${name}: reports carry the request id, app_version and user id`, async (t) => {
    const { tracker, observed } = await create();
    t.teardown(() => tracker.close());
    tracker.captureException(new Error("conformance failure"), { requestId: "req-conf", appVersion: "9.9.9", userId: "user-1" });
    t.true(await tracker.flush(2000));
    if (!observed) {
      t.pass("this adapter cannot be observed");
      return;
    }
    const reports = await observed();
    t.is(reports.length, 1);
    t.like(reports[0], { message: "conformance failure", requestId: "req-conf", appVersion: "9.9.9", userId: "user-1" });
  });

  test(`${name}: nothing is delivered after close`, async (t) => {
    const { tracker, observed } = await create();
    await tracker.close(1000);
    tracker.captureException(new Error("late"));
    if (!observed) {
      t.pass("this adapter cannot be observed");
      return;
    }
    t.deepEqual(await observed(), []);
  });
}
