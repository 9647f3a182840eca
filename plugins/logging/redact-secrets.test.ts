import test from "ava";
import { createSvcLogger } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";
import { isSecretKey, REDACTED, redactSecrets, redactUrl } from "./redact-secrets.js";

test("secret-looking keys are recognised in any spelling; ordinary keys are not", (t) => {
  for (const key of ["password", "newPassword", "refresh_token", "accessToken", "Authorization", "x-api-key", "apiKey", "set-cookie", "clientSecret", "privateKey", "pwd", "otp"]) {
    t.true(isSecretKey(key), key);
  }
  for (const key of ["email", "sessionId", "requestId", "name", "tokenCount", "passengers"]) t.false(isSecretKey(key), key);
});

test("redaction works at any depth and in arrays without touching the input", (t) => {
  const input = {
    email: "a@b.c",
    password: "hunter2",
    profile: { apiKey: "k-1", nested: [{ token: "t-1", keep: 1 }] },
    headers: { authorization: "Bearer abc", accept: "json" },
  };
  const output = redactSecrets(input);
  t.deepEqual(output, {
    email: "a@b.c",
    password: REDACTED,
    profile: { apiKey: REDACTED, nested: [{ token: REDACTED, keep: 1 }] },
    headers: { authorization: REDACTED, accept: "json" },
  });
  t.is(input.password, "hunter2");
});

test("cycles are cut and null secrets stay null", (t) => {
  const cyclic: Record<string, unknown> = { password: null };
  cyclic.self = cyclic;
  t.deepEqual(redactSecrets(cyclic), { password: null, self: "[Circular]" });
});

test("secret query parameters are redacted in URLs", (t) => {
  t.is(redactUrl("/reset?token=abc&email=x"), "/reset?token=%5BREDACTED%5D&email=x");
  t.is(redactUrl("/plain?page=2"), "/plain?page=2");
  t.is(redactUrl("/no-query"), "/no-query");
});

test("the logger redacts secrets in metadata of every line", (t) => {
  const capture = new LogCapture();
  const log = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  log.info("signup", { body: { email: "a@b.c", password: "hunter2" }, refreshToken: "rt-secret" });
  t.false(capture.text().includes("hunter2"));
  t.false(capture.text().includes("rt-secret"));
  t.like(capture.lines[0], { refreshToken: REDACTED, body: { email: "a@b.c", password: REDACTED } });
});
