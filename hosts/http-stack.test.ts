import test from "ava";
import express from "express";
import request from "supertest";
import { AuthErrors } from "../plugins/auth/errors.js";
import { authTestApp, errorCode, uniqueEmail } from "../test/support/auth-test-app.js";
import { SvcApp } from "./svc-app.js";
import { stopTestDatabase } from "./testing.js";

test.after.always(() => stopTestDatabase());

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** An app without a database whose `GET /ip` answers `req.ip`. */
async function ipApp(t: { teardown: (fn: () => Promise<void>) => void }, options: ConstructorParameters<typeof SvcApp>[0] = {}) {
  const router = express.Router();
  router.get("/ip", (req, res) => res.json({ data: { ip: req.ip } }));
  const app = new SvcApp({ database: false, logger: silent, handleSignals: false, ...options, env: { NODE_ENV: "test", ...options.env } }).register(router);
  const http = await app.build();
  t.teardown(() => app.stop());
  return http;
}

test("without TRUST_PROXY, req.ip is the socket's address whatever X-Forwarded-For says", async (t) => {
  const http = await ipApp(t);
  const response = await request(http).get("/ip").set("X-Forwarded-For", "203.0.113.7").expect(200);
  t.regex(response.body.data.ip, /127\.0\.0\.1|::1/);
});

test("TRUST_PROXY=1 takes the client address the proxy appended; the trustProxy option wins over it", async (t) => {
  const trusting = await ipApp(t, { env: { TRUST_PROXY: "1" } });
  const forwarded = await request(trusting).get("/ip").set("X-Forwarded-For", "198.51.100.1, 203.0.113.7").expect(200);
  t.is(forwarded.body.data.ip, "203.0.113.7", "one hop: the entry the load balancer added, not one the client forged");
  const overridden = await ipApp(t, { env: { TRUST_PROXY: "1" }, trustProxy: false });
  const direct = await request(overridden).get("/ip").set("X-Forwarded-For", "203.0.113.7").expect(200);
  t.not(direct.body.data.ip, "203.0.113.7");
});

test("behind a proxy (TRUST_PROXY=1), failed logins are limited per client, not per proxy", async (t) => {
  const { http } = await authTestApp(t, { rateLimits: { perIp: { points: 2, durationSeconds: 600 } } }, { TRUST_PROXY: "1" });
  const login = (client: string) =>
    request(http).post("/auth/login").set("X-Forwarded-For", client).send({ email: uniqueEmail(), password: "wrong password" });
  await login("203.0.113.1").expect(401);
  await login("203.0.113.1").expect(401);
  t.is(errorCode(await login("203.0.113.1").expect(429)), AuthErrors.RATE_LIMITED.code);
  await login("203.0.113.2").expect(401);
});

test("every request that gets an answer is logged once with its status, those refused before the routes too", async (t) => {
  const { http, logs } = await authTestApp(t, {}, {}, undefined, { bodyLimit: 1024 });
  const secret = "Unlogged-Passphrase-5e1d";
  const cases: Array<[string, number, (id: string) => request.Test]> = [
    ["malformed JSON", 400, (id) => request(http).post("/auth/login").set("X-Request-ID", id).type("json").send(`{"password":"${secret}",`)],
    ["body too large", 413, (id) => request(http).post("/auth/login").set("X-Request-ID", id).send({ password: secret, pad: "x".repeat(2000) })],
    ["too many query parameters", 413, (id) => request(http).get(`/auth/me?${"a=1&".repeat(1001)}`).set("X-Request-ID", id)],
    ["invalid bearer token", 401, (id) => request(http).get("/auth/me").set("X-Request-ID", id).set("Authorization", "Bearer not-a-token")],
    ["CORS preflight", 204, (id) =>
      request(http).options("/auth/login").set("X-Request-ID", id).set("Origin", "https://app.example.com").set("Access-Control-Request-Method", "POST")],
    ["wrong password", 401, (id) => request(http).post("/auth/login").set("X-Request-ID", id).send({ email: uniqueEmail(), password: secret })],
  ];
  for (const [name, status, send] of cases) {
    const id = `log-${name.replaceAll(" ", "-")}`;
    await send(id).expect(status);
    // The line is written on the response's "finish", which may follow the client's read.
    const lines = await eventually(() => logs.lines.filter((line) => line.requestId === id && "durationMs" in line));
    t.is(lines.length, 1, name);
    t.is(lines[0]?.status, status, name);
  }
  t.false(logs.text().includes(secret), "passwords stay redacted");
});

async function eventually<T>(read: () => T[]): Promise<T[]> {
  for (let attempt = 0; attempt < 50 && read().length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 20)); // and no second line follows
  return read();
}
