import test from "ava";
import * as Sentry from "@sentry/node";
import nock from "nock";
import { createSentryErrorTracker } from "./sentry.js";
import { errorTrackerConformance, type ObservedException } from "../conformance/error-tracker.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

const DSN = "https://public@o1.ingest.example.com/1";

/** A Sentry transport that keeps envelope items in memory instead of sending them. */
function memoryTransport() {
  const items: Array<{ type: string; payload: Record<string, unknown> }> = [];
  const transport: NonNullable<Sentry.NodeOptions["transport"]> = (options) =>
    Sentry.createTransport(options, async (request) => {
      const body = typeof request.body === "string" ? request.body : new TextDecoder().decode(request.body);
      const lines = body.split("\n").filter((line) => line.trim() !== "");
      for (let index = 1; index + 1 < lines.length; index += 2) {
        const header = JSON.parse(lines[index]!) as { type: string };
        items.push({ type: header.type, payload: JSON.parse(lines[index + 1]!) as Record<string, unknown> });
      }
      return { statusCode: 200 };
    });
  return { items, transport };
}

function observe(items: ReturnType<typeof memoryTransport>["items"]): ObservedException[] {
  return items
    .filter((item) => item.type === "event")
    .map(({ payload }) => {
      const event = payload as { exception?: { values?: Array<{ value?: string }> }; tags?: Record<string, string>; user?: { id?: string } };
      return {
        message: event.exception?.values?.at(-1)?.value,
        requestId: event.tags?.request_id,
        appVersion: event.tags?.app_version,
        userId: event.user?.id,
      };
    });
}

errorTrackerConformance(test, "sentry", () => {
  const { items, transport } = memoryTransport();
  return { tracker: createSentryErrorTracker({ dsn: DSN, transport }), observed: async () => observe(items) };
});

test("sentry: tags, extra, environment and release reach the event; logs are mirrored as Sentry logs", async (t) => {
  const { items, transport } = memoryTransport();
  const tracker = createSentryErrorTracker({ dsn: DSN, transport, tracesSampleRate: 0.5, environment: "test", release: "1.0.0" });
  t.teardown(() => tracker.close());
  tracker.captureException(new TypeError("bad"), { jobId: "nightly", tags: { area: "billing" }, extra: { invoice: "in_1" } });
  tracker.captureLog({ level: "warn", message: "Slow request", attributes: { requestId: "r-7", durationMs: 4000 } });
  t.true(await tracker.flush(2000));
  const event = items.find((item) => item.type === "event")!.payload as {
    tags: Record<string, string>;
    extra: Record<string, unknown>;
    environment: string;
    release: string;
  };
  t.like(event.tags, { job_id: "nightly", area: "billing" });
  t.deepEqual(event.extra, { invoice: "in_1" });
  t.is(event.environment, "test");
  t.is(event.release, "1.0.0");
  const logs = items.find((item) => item.type === "log")?.payload as { items: Array<{ body: string; level: string; attributes: Record<string, { value: unknown }> }> };
  t.truthy(logs);
  t.is(logs.items[0]!.body, "Slow request");
  t.is(logs.items[0]!.level, "warn");
  t.is(logs.items[0]!.attributes.requestId!.value, "r-7");
});
