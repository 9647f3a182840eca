import test from "ava";
import { loadConfig } from "./config.js";
import { ConfigErrors } from "./environment.js";
import { hasErrorCode } from "./errors.js";

test("defaults follow SPEC §8", (t) => {
  const config = loadConfig({});
  t.is(config.nodeEnv, "development");
  t.is(config.port, 3000);
  t.is(config.websocketPort, 3001);
  t.is(config.slowRequestThresholdMs, 3000);
  t.is(config.slowDbQueryThresholdMs, 1000);
  t.is(config.errorTracker.tracesSampleRate, 0.1);
  t.true(config.featureFlagsDebug);
  t.is(config.mcp.host, "0.0.0.0");
  t.is(config.dbUri, undefined);
  t.false(config.enableApiDocsUi);
});

test("DB_CONNECTION is the fallback for DB_URI", (t) => {
  t.is(loadConfig({ DB_CONNECTION: "mongodb://a/b" }).dbUri, "mongodb://a/b");
  t.is(loadConfig({ DB_URI: "mongodb://x/y", DB_CONNECTION: "mongodb://a/b" }).dbUri, "mongodb://x/y");
});

for (const [name, value] of [
  ["PORT", "abc"],
  ["NODE_ENV", "staging"],
  ["ERRORTRACKER_TRACES_SAMPLE_RATE", "1.5"],
  ["SLOW_REQUEST_THRESHOLD_MS", "-3"],
  ["SLACK_WEBHOOKS", "{not json"],
  ["ENABLE_API_DOCS_UI", "maybe"],
] as const) {
  test(`a wrong ${name} fails with a message naming it`, (t) => {
    const error = t.throws(() => loadConfig({ [name]: value }));
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
    t.true(error!.message.includes(name));
  });
}

test("the error tracker DSN is required only when tracking is on", (t) => {
  t.notThrows(() => loadConfig({ USE_ERRORTRACKER_LOGGING: "false" }));
  const error = t.throws(() => loadConfig({ USE_ERRORTRACKER_LOGGING: "true" }));
  t.true(error!.message.includes("ERRORTRACKER_DSN"));
  t.is(loadConfig({ USE_ERRORTRACKER_LOGGING: "true", ERRORTRACKER_DSN: "https://k@o.example/1" }).errorTracker.enabled, true);
});

test("webhook maps parse into objects", (t) => {
  const config = loadConfig({ SLACK_WEBHOOKS: JSON.stringify({ ops: "https://hooks.example/ops" }) });
  t.deepEqual(config.webhooks.slack, { ops: "https://hooks.example/ops" });
});
