import test from "ava";
import { AxiosError, AxiosHeaders, type InternalAxiosRequestConfig } from "axios";
import nock from "nock";
import { createAuthenticatedClient } from "./create-authenticated-client.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { computeRetryDelay, markRetryUnsafe, type RetryEvent } from "./retry-policy.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

const silent: SvcLogger = { debug() {}, info() {}, warn() {}, error() {} };
let hostCounter = 0;

/** A client on a host of its own (tests run concurrently), retrying without real waits. */
function client(retry: Parameters<typeof createAuthenticatedClient>[0]["retry"] = {}, logger: SvcLogger = silent) {
  const origin = `https://retry-${++hostCounter}.example.com`;
  const events: RetryEvent[] = [];
  const { http } = createAuthenticatedClient({
    apiName: "upstream",
    baseURL: origin,
    auth: { type: "bearer", getToken: () => "t" },
    retry: retry === false ? false : { delayScale: 0, onRetry: (event) => events.push(event), ...retry },
    logger,
  });
  return { http, origin, events };
}

/** Counts calls of `method path` answered by `reply` (status, or a network error). */
function upstream(origin: string, method: string, reply: number | "network", headers: Record<string, string> = {}) {
  let calls = 0;
  const interceptor = nock(origin).intercept("/thing", method).times(10);
  if (reply === "network") {
    interceptor.replyWithError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
  } else {
    interceptor.reply(() => {
      calls += 1;
      return [reply, reply >= 400 ? { message: "nope" } : {}, headers];
    });
  }
  return { get calls() { return calls; } };
}

async function attempt(http: ReturnType<typeof client>["http"], method: string, unsafe = false) {
  const config = { method, url: "/thing", ...(unsafe ? markRetryUnsafe() : {}) };
  return http.request(config).then(
    (response) => response.status,
    (error: AxiosError) => error.response?.status ?? error.code,
  );
}

const RETRYABLE = [429, 500, 502, 503, 504];
const FINAL = [400, 401, 403, 404, 409, 422];
const SAFE = ["GET", "HEAD", "OPTIONS"];
const UNSAFE = ["POST", "PUT", "PATCH", "DELETE"];

for (const status of RETRYABLE) {
  for (const method of SAFE) {
    test(`${method} answered ${status} is tried 3 times in total`, async (t) => {
      const { http, origin, events } = client();
      const api = upstream(origin, method, status);
      t.is(await attempt(http, method), status);
      t.is(api.calls, 3);
      t.deepEqual(events.map((event) => event.attempt), [2, 3]);
    });
  }
  for (const method of UNSAFE) {
    test(`${method} answered ${status} is not retried unless markRetryUnsafe`, async (t) => {
      const plain = client();
      const once = upstream(plain.origin, method, status);
      t.is(await attempt(plain.http, method), status);
      t.is(once.calls, 1);
      const marked = client();
      const thrice = upstream(marked.origin, method, status);
      t.is(await attempt(marked.http, method, true), status);
      t.is(thrice.calls, 3);
    });
  }
}

for (const status of FINAL) {
  test(`${status} is never retried, even for GET or markRetryUnsafe`, async (t) => {
    const get = client();
    const getApi = upstream(get.origin, "GET", status);
    t.is(await attempt(get.http, "GET"), status);
    t.is(getApi.calls, 1);
    const post = client();
    const postApi = upstream(post.origin, "POST", status);
    t.is(await attempt(post.http, "POST", true), status);
    t.is(postApi.calls, 1);
  });
}

test("network errors are retried for GET and classified as network", async (t) => {
  const { http, origin, events } = client();
  upstream(origin, "GET", "network");
  t.is(await attempt(http, "GET"), "ECONNRESET");
  t.deepEqual(events.map((event) => [event.attempt, event.classification]), [[2, "network"], [3, "network"]]);
});

test("a network error on POST is not retried without markRetryUnsafe", async (t) => {
  const { http, origin, events } = client();
  upstream(origin, "POST", "network");
  t.is(await attempt(http, "POST"), "ECONNRESET");
  t.is(events.length, 0);
});

test("a retry that succeeds resolves with the success", async (t) => {
  const { http, origin } = client();
  nock(origin).get("/thing").reply(503).get("/thing").reply(200, { ok: true });
  const response = await http.get("/thing");
  t.deepEqual(response.data, { ok: true });
});

test("maxAttempts counts the first request; retry: false makes one attempt", async (t) => {
  const five = client({ maxAttempts: 5 });
  const api = upstream(five.origin, "GET", 503);
  await attempt(five.http, "GET");
  t.is(api.calls, 5);
  const none = client(false);
  const single = upstream(none.origin, "GET", 503);
  await attempt(none.http, "GET");
  t.is(single.calls, 1);
});

test("backoff is exponential from 250 ms with up to 20% jitter", async (t) => {
  const { http, origin, events } = client();
  upstream(origin, "GET", 503);
  await attempt(http, "GET");
  const [first, second] = events.map((event) => event.delayMs);
  t.true(first! >= 250 && first! <= 300, String(first));
  t.true(second! >= 500 && second! <= 600, String(second));
});

test("Retry-After in seconds is honoured", async (t) => {
  const { http, origin, events } = client();
  upstream(origin, "GET", 429, { "Retry-After": "5" });
  await attempt(http, "GET");
  for (const event of events) t.true(event.delayMs >= 5000 && event.delayMs <= 6000, String(event.delayMs));
  t.is(events[0]!.classification, "rateLimited");
});

test("Retry-After as an HTTP date is honoured", async (t) => {
  const { http, origin, events } = client();
  const retryAt = new Date(Date.now() + 10_000).toUTCString();
  // The wait is measured from when the retry is scheduled, somewhere between these two instants
  // (bounds from the clock, not fixed numbers: a loaded machine may take seconds to get there).
  const before = Date.now();
  upstream(origin, "GET", 503, { "Retry-After": retryAt });
  await attempt(http, "GET");
  const after = Date.now();
  const until = Date.parse(retryAt);
  // Up to 20% jitter on top of the time left until the header's date.
  t.true(events[0]!.delayMs >= until - after && events[0]!.delayMs <= (until - before) * 1.2, String(events[0]!.delayMs));
});

test("Retry-After is capped at maxDelayMs (30 s by default, or the configured cap)", async (t) => {
  const defaults = client();
  upstream(defaults.origin, "GET", 503, { "Retry-After": "120" });
  await attempt(defaults.http, "GET");
  t.deepEqual(defaults.events.map((event) => event.delayMs), [30_000, 30_000]);
  const capped = client({ maxDelayMs: 1000 });
  upstream(capped.origin, "GET", 429, { "Retry-After": "5" });
  await attempt(capped.http, "GET");
  t.deepEqual(capped.events.map((event) => event.delayMs), [1000, 1000]);
});

test("computeRetryDelay doubles per retry and caps", (t) => {
  const error = new AxiosError("x", "ERR", { headers: new AxiosHeaders() } as InternalAxiosRequestConfig);
  const options = { baseDelayMs: 100, maxDelayMs: 350 };
  const third = computeRetryDelay(3, error, options);
  t.is(third, 350);
  const first = computeRetryDelay(1, error, options);
  t.true(first >= 100 && first <= 120);
});

test("markRetryUnsafe keeps the config it is given", (t) => {
  t.deepEqual(markRetryUnsafe({ headers: { "Idempotency-Key": "k" } }), { headers: { "Idempotency-Key": "k" }, svcRetryUnsafe: true });
  t.deepEqual(markRetryUnsafe(), { svcRetryUnsafe: true });
});

test("the retry warning's URL has its secret query parameters redacted", async (t) => {
  const warnings: string[] = [];
  const { http, origin } = client({}, { ...silent, warn: (message: string) => void warnings.push(message) });
  nock(origin).get("/thing").query(true).times(3).reply(503, {});
  await t.throwsAsync(http.get("/thing?api_key=SUPERSECRET&token=T0K&page=2"));
  t.is(warnings.length, 2);
  for (const warning of warnings) {
    t.false(warning.includes("SUPERSECRET") || warning.includes("T0K"), warning);
    t.regex(warning, /retrying GET \/thing\?.*page=2/);
  }
});
