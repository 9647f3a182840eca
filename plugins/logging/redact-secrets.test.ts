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

test("every secret-looking name is caught, whatever its case or separators", (t) => {
  const secrets = [
    // passwords, and what is derived from them
    "PASSWORD", "old_password", "passwordConfirmation", "password2", "passwordHash", "passphrase", "userPass", "db-pwd",
    // tokens
    "token", "idToken", "id_token", "access-token", "accesstoken", "REFRESH_TOKEN", "x-csrf-token", "sessionTokens", "jwt", "userJwt",
    // secrets and keys
    "secret", "client_secret", "CLIENT_SECRET", "webhookSecret", "secrets", "APIKey", "api_key", "X-API-KEY", "apikey",
    "private_key", "secretKey", "awsAccessKey", "signingKey", "encryptionKey",
    // headers
    "authorization", "Proxy-Authorization", "Cookie", "cookies", "Set-Cookie", "X-Api-Key", "x-goog-api-key", "X-Amz-Security-Token",
    // one-time codes and the like
    "otp", "smsOtp", "totp", "pin", "cardPin", "cvv", "CVC", "verificationCode", "verification_code", "authCode", "mfaCode",
    "recoveryCodes", "codeVerifier", "passcode", "linkCode", "link_code",
    // other credentials
    "credentials", "googleCredential", "signature", "x-hub-signature", "auth", "basicAuth",
  ];
  for (const key of secrets) t.true(isSecretKey(key), key);
});

test("names that merely contain a secret word are kept", (t) => {
  const ordinary = [
    "monkey", "donkey", "keyboard", "key", "keys", "sortKey", "flagKey", "primary_key", "publicKey", "apiKeyId", "private_key_id",
    "code", "errorCode", "statusCode", "countryCode", "zipcode", "codeChallenge",
    "tokenCount", "tokenType", "token_expires_at", "tokenizer", "secretary", "isSecretary",
    "spin", "pinned", "bypass", "compass", "passengers", "passport", "oauth", "oauthProvider", "author", "authorName",
    "cookieConsent", "signatureVersion", "sessionId", "userId", "requestId", "traceId", "jobId", "email", "",
  ];
  for (const key of ordinary) t.false(isSecretKey(key), key);
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

test("URLs also lose OAuth codes, API keys and signatures, in any parameter spelling", (t) => {
  const url = redactUrl("/auth/github/callback?code=gh-123&state=s-1&access_token=at&X-Amz-Signature=sg&key=AIza&sig=abc&page=2");
  const params = new URL(url, "http://x").searchParams;
  for (const name of ["code", "access_token", "X-Amz-Signature", "key", "sig"]) t.is(params.get(name), REDACTED, name);
  t.is(params.get("state"), "s-1");
  t.is(params.get("page"), "2");
  for (const secret of ["gh-123", "=at", "=sg", "AIza", "abc"]) t.false(url.includes(secret), secret);
});

test("request and response headers lose their credentials", (t) => {
  const headers = {
    Authorization: "Bearer eyJ.abc",
    Cookie: "sid=s3cr3t",
    "Set-Cookie": ["sid=s3cr3t; HttpOnly", "theme=dark"],
    "X-Api-Key": "k-1",
    "x-request-id": "r-1",
    "content-type": "application/json",
  };
  t.deepEqual(redactSecrets({ headers }), {
    headers: {
      Authorization: REDACTED,
      Cookie: REDACTED,
      "Set-Cookie": REDACTED,
      "X-Api-Key": REDACTED,
      "x-request-id": "r-1",
      "content-type": "application/json",
    },
  });
});

test("every secret at any depth is redacted, whole, whatever the value's type", (t) => {
  const input = {
    user: { email: "a@b.c", oauth: { provider: "github", idToken: "it-1", tokens: ["t-1", "t-2"] } },
    integrations: [{ name: "stripe", clientSecret: "cs-1", config: { webhook_secret: "ws-1", api_key: 42 } }],
    mfa: { verificationCode: "123456", backupCodes: ["a", "b"] },
  };
  t.deepEqual(redactSecrets(input), {
    user: { email: "a@b.c", oauth: { provider: "github", idToken: REDACTED, tokens: REDACTED } },
    integrations: [{ name: "stripe", clientSecret: REDACTED, config: { webhook_secret: REDACTED, api_key: REDACTED } }],
    mfa: { verificationCode: REDACTED, backupCodes: REDACTED },
  });
});

test("the logger redacts secrets in metadata of every line", (t) => {
  const capture = new LogCapture();
  const log = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  log.info("signup", { body: { email: "a@b.c", password: "hunter2" }, refreshToken: "rt-secret" });
  t.false(capture.text().includes("hunter2"));
  t.false(capture.text().includes("rt-secret"));
  t.like(capture.lines[0], { refreshToken: REDACTED, body: { email: "a@b.c", password: REDACTED } });
});
