import test from "ava";
import { loadConfig } from "./config.js";
import { ConfigErrors } from "./environment.js";
import { hasErrorCode } from "./errors.js";

test("defaults follow SPEC §8", (t) => {
  const config = loadConfig({});
  t.is(config.nodeEnv, "development");
  t.false(config.isProduction);
  t.is(config.port, 3000);
  t.is(config.websocketPort, undefined);
  t.is(config.host, "127.0.0.1");
  t.false(config.enableApiDocsUi);
});

test("HOST defaults to this machine only outside production and to all interfaces in production", (t) => {
  t.is(loadConfig({ NODE_ENV: "development" }).host, "127.0.0.1");
  t.is(loadConfig({ NODE_ENV: "test" }).host, "127.0.0.1");
  t.is(loadConfig({ NODE_ENV: "production" }).host, undefined, "undefined: every interface");
  t.is(loadConfig({ NODE_ENV: "production", HOST: "  " }).host, undefined, "a blank HOST counts as unset");
  t.is(loadConfig({ NODE_ENV: "development", HOST: "0.0.0.0" }).host, "0.0.0.0");
  t.is(loadConfig({ NODE_ENV: "production", HOST: "10.0.0.5" }).host, "10.0.0.5");
});

test("PORT=0 asks for any free port", (t) => {
  t.is(loadConfig({ PORT: "0" }).port, 0);
});

test("WEBSOCKET_PORT and HOST are read when set", (t) => {
  const config = loadConfig({ PORT: "4000", WEBSOCKET_PORT: "4100", HOST: "127.0.0.1" });
  t.is(config.websocketPort, 4100);
  t.is(config.host, "127.0.0.1");
  t.is(loadConfig({ PORT: "4000" }).websocketPort, undefined);
});

for (const [name, value] of [
  ["PORT", "abc"],
  ["WEBSOCKET_PORT", "70000"],
  ["PORT", "-1"],
  ["PORT", "30.5"],
  ["NODE_ENV", "staging"],
  ["ENABLE_API_DOCS_UI", "maybe"],
] as const) {
  test(`a wrong ${name} (${value}) fails with a message naming it`, (t) => {
    const error = t.throws(() => loadConfig({ [name]: value }));
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
    t.true(error!.message.includes(name));
  });
}

test("plugins' variables are left to the plugins: the kernel keeps the raw environment for them", (t) => {
  // A malformed plugin variable is the owning plugin's to report (at register), not loadConfig's.
  const config = loadConfig({ SLOW_REQUEST_THRESHOLD_MS: "-3", SLACK_WEBHOOKS: "{not json", DB_URI: "postgres://x" });
  t.is(config.env.SLACK_WEBHOOKS, "{not json");
  t.true(Object.isFrozen(config.env));
});

test("TRUST_PROXY takes express's trust proxy settings in text form", (t) => {
  t.is(loadConfig({}).trustProxy, false);
  t.is(loadConfig({ TRUST_PROXY: " " }).trustProxy, false, "blank counts as unset");
  t.is(loadConfig({ TRUST_PROXY: "true" }).trustProxy, true);
  t.is(loadConfig({ TRUST_PROXY: "FALSE" }).trustProxy, false);
  t.is(loadConfig({ TRUST_PROXY: "2" }).trustProxy, 2, "a hop count, not the address 2");
  t.is(loadConfig({ TRUST_PROXY: "loopback, uniquelocal" }).trustProxy, "loopback,uniquelocal");
  t.is(
    loadConfig({ TRUST_PROXY: "10.0.0.1,10.0.0.0/8,192.168.0.0/255.255.0.0,fc00::/7,::1,linklocal" }).trustProxy,
    "10.0.0.1,10.0.0.0/8,192.168.0.0/255.255.0.0,fc00::/7,::1,linklocal",
  );
});

for (const value of ["yes", "loopbak", "10.0.0.0/33", "10.0.0.0/0", "fc00::/129", "10.0.0.0/255.0.255.0", "10.0.0.1,,10.0.0.2", "1.5"]) {
  test(`TRUST_PROXY=${value} is refused naming the variable`, (t) => {
    const error = t.throws(() => loadConfig({ TRUST_PROXY: value }));
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
    t.true(error!.message.includes("TRUST_PROXY"));
  });
}
