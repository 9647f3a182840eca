// Auth with the app run as two processes on one database (docs/auth.md "Running several
// processes"): what one process issues or revokes holds on the other at once, since tokens are
// checked against the database on every request; the per-account login limit, counted in the
// database as the docs show, is one budget whichever process a guess reaches, while a limit left
// on its default in-memory counter is per process.
import test from "ava";
import request from "supertest";
import { ACCOUNTS } from "../../contracts/accounts.js";
import { errorCode, TestUser, uniqueEmail } from "../support/auth-test-app.js";
import { twoProcesses } from "../support/second-process.js";
import { ACCOUNT_POINTS, IP_POINTS, scaleOutAuthApp } from "./auth-app.js";

const PASSWORD = "correct horse battery staple";

const { first, second } = twoProcesses(test, (t) => scaleOutAuthApp(t), new URL("./auth-second-process.ts", import.meta.url));

let addresses = 0;
/** A client address of its own per call, so tests do not share per-IP budgets. */
const clientAddress = () => `203.0.113.${++addresses}`;

async function signup(): Promise<{ email: string; userId: string; token: string; refreshToken: string }> {
  const { url } = await first;
  const email = uniqueEmail();
  const response = await request(url).post("/auth/signup").set("X-Forwarded-For", clientAddress()).send({ email, password: PASSWORD }).expect(201);
  return { email, ...(response.body.data as { userId: string; token: string; refreshToken: string }) };
}

const refresh = (url: string, refreshToken: string) => request(url).post("/auth/refresh_token").send({ refreshToken });
const me = (url: string, token: string) => request(url).get("/auth/me").set("Authorization", `Bearer ${token}`);
const login = (url: string, email: string, password: string, from: string) => request(url).post("/auth/login").set("X-Forwarded-For", from).send({ email, password });

test("tokens issued by one process work on the other, and a refresh token reused there ends the sign-in on both", async (t) => {
  const { url } = await first;
  const other = await second;
  const user = await signup();
  t.is((await me(other.url, user.token).expect(200)).body.data.email, user.email);

  const rotated = (await refresh(url, user.refreshToken).expect(200)).body.data as { token: string; refreshToken: string };
  t.is(errorCode(await refresh(other.url, user.refreshToken).expect(401)), "AUTH_REFRESH_TOKEN_REUSED");
  // The reuse revoked the whole sign-in, the pair the first process just handed out included.
  t.is(errorCode(await refresh(url, rotated.refreshToken).expect(401)), "AUTH_REFRESH_TOKEN_INVALID");
});

test("setPassword through one process ends the sign-ins on the other; disabling a user there refuses its tokens at once", async (t) => {
  const { url, app } = await first;
  const other = await second;
  const user = await signup();
  await app.resolve(ACCOUNTS).setPassword(user.userId, "another horse battery staple");
  t.is(errorCode(await refresh(other.url, user.refreshToken).expect(401)), "AUTH_REFRESH_TOKEN_INVALID");
  t.is(errorCode(await me(other.url, user.token).expect(401)), "AUTH_TOKEN_REVOKED");
  t.is(errorCode(await login(other.url, user.email, PASSWORD, clientAddress()).expect(401)), "AUTH_INVALID_CREDENTIALS");
  const again = (await login(other.url, user.email, "another horse battery staple", clientAddress()).expect(200)).body.data as { token: string };

  await TestUser.updateOne({ _id: user.userId }, { disabled: true });
  t.is(errorCode(await me(other.url, again.token).expect(401)), "AUTH_USER_DISABLED");
  t.is(errorCode(await me(url, again.token).expect(401)), "AUTH_USER_DISABLED");
});

test("failed logins of one account spread over both processes spend one budget (the database-backed store)", async (t) => {
  const { url } = await first;
  const other = await second;
  const user = await signup();
  // Each guess from an address of its own, so only the account's budget counts.
  for (let guess = 0; guess < ACCOUNT_POINTS; guess++) {
    const answer = await login(guess % 2 === 0 ? url : other.url, user.email, "wrong password!", clientAddress());
    t.is(errorCode(answer), "AUTH_INVALID_CREDENTIALS");
  }
  for (const target of [url, other.url]) {
    const refused = await login(target, user.email, PASSWORD, clientAddress()).expect(429);
    t.is(errorCode(refused), "AUTH_RATE_LIMITED");
    t.truthy(refused.headers["retry-after"]);
  }
});

test("a limit on the default in-memory store is per process: each process gives an address its own budget", async (t) => {
  const { url } = await first;
  const other = await second;
  const from = clientAddress();
  const guess = async (target: string) => errorCode(await login(target, (await signup()).email, "wrong password!", from));
  for (let attempt = 0; attempt < IP_POINTS; attempt++) t.is(await guess(url), "AUTH_INVALID_CREDENTIALS");
  t.is(await guess(url), "AUTH_RATE_LIMITED");
  // The documented caveat (docs/auth.md): the other process has counted nothing for this address.
  t.is(await guess(other.url), "AUTH_INVALID_CREDENTIALS");
});

test.after("the second process logged no error", async (t) => {
  const other = await second;
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(other.output(), "");
});
