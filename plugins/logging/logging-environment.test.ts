import test from "ava";
import { ConfigErrors } from "../../kernel/environment.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { readLoggingEnvironment } from "./logging-environment.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

test("defaults follow SPEC §8", (t) => {
  t.deepEqual(readLoggingEnvironment({}), {
    disableLogAllRequests: false,
    slowRequestThresholdMs: 3000,
    slowDbQueryThresholdMs: 1000,
    errorTracker: { enabled: false, dsn: undefined, tracesSampleRate: 0.1 },
  });
});

test("set values are parsed", (t) => {
  const env = readLoggingEnvironment({
    DISABLE_LOG_ALL_REQUESTS: "true",
    SLOW_REQUEST_THRESHOLD_MS: "250",
    SLOW_DB_QUERY_THRESHOLD_MS: "40",
    USE_ERRORTRACKER_LOGGING: "true",
    ERRORTRACKER_DSN: "https://k@o.example/1",
    ERRORTRACKER_TRACES_SAMPLE_RATE: "0.5",
  });
  t.true(env.disableLogAllRequests);
  t.is(env.slowRequestThresholdMs, 250);
  t.is(env.slowDbQueryThresholdMs, 40);
  t.deepEqual(env.errorTracker, { enabled: true, dsn: "https://k@o.example/1", tracesSampleRate: 0.5 });
});

for (const [name, value] of [
  ["DISABLE_LOG_ALL_REQUESTS", "maybe"],
  ["SLOW_REQUEST_THRESHOLD_MS", "-3"],
  ["SLOW_DB_QUERY_THRESHOLD_MS", "1.5s"],
  ["USE_ERRORTRACKER_LOGGING", "yes please"],
  ["ERRORTRACKER_TRACES_SAMPLE_RATE", "1.5"],
] as const) {
  test(`a wrong ${name} is reported by name`, (t) => {
    const error = t.throws(() => readLoggingEnvironment({ [name]: value }));
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
    t.true(error!.message.includes(name));
  });
}

test("the error tracker DSN is required only when tracking is on", (t) => {
  t.notThrows(() => readLoggingEnvironment({ USE_ERRORTRACKER_LOGGING: "false" }));
  const error = t.throws(() => readLoggingEnvironment({ USE_ERRORTRACKER_LOGGING: "true" }));
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.true(error!.message.includes("ERRORTRACKER_DSN"));
});

test("a blank error tracker DSN with tracking on fails like an unset one", (t) => {
  for (const dsn of ["", "   "]) {
    const error = t.throws(() => readLoggingEnvironment({ USE_ERRORTRACKER_LOGGING: "true", ERRORTRACKER_DSN: dsn }), undefined, JSON.stringify(dsn));
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
    t.true(error!.message.includes("ERRORTRACKER_DSN"));
  }
  t.is(readLoggingEnvironment({ ERRORTRACKER_DSN: "" }).errorTracker.dsn, undefined, "tracking off: a blank DSN is just unset");
});

test("a wrong logging variable fails the app in the register phase", (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "test", SLOW_REQUEST_THRESHOLD_MS: "soon" }, database: false, logger: silent, handleSignals: false });
  const error = t.throws(() => app.kernel.register());
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.true(error!.message.includes("SLOW_REQUEST_THRESHOLD_MS"));
});
