import test from "ava";
import express from "express";
import mongoose from "mongoose";
import { SignJWT } from "jose";
import request from "supertest";
import { ACCOUNTS } from "../../../contracts/accounts.js";
import { AUTHENTICATOR } from "../../../contracts/authenticator.js";
import { AUTHENTICATION_MIDDLEWARE } from "../../../contracts/http.js";
import { createTestApp, stopTestDatabase } from "../../../hosts/testing.js";
import type { Token } from "../../../kernel/container.js";
import { ConfigErrors } from "../../../kernel/environment.js";
import { HttpErrors } from "../../../kernel/http-errors.js";
import type { SvcPlugin } from "../../../kernel/plugin.js";
import { ValidationErrors } from "../../validation/index.js";
import { authPlugin } from "../auth-plugin.js";
import { AuthErrors } from "../errors.js";
import { authTestApp, errorCode as code, JWT_ENV, SESSION_ENV, TestUser, uniqueEmail } from "../../../test/support/auth-test-app.js";
import { TokenService } from "./token-service.js";

test.after.always(() => stopTestDatabase());

const PASSWORD = "correct horse battery staple";

type Http = Parameters<typeof request>[0];

async function signup(http: Http, email = uniqueEmail(), extra: Record<string, unknown> = {}) {
  const response = await request(http).post("/auth/signup").send({ email, password: PASSWORD, ...extra }).expect(201);
  return { email, ...(response.body.data as { token: string; refreshToken: string; userId: string }) };
}

function tokenService(overrides: Partial<ConstructorParameters<typeof TokenService>[0]> = {}) {
  return new TokenService({
    accessSecret: JWT_ENV.TOKEN_SECRET,
    refreshSecret: JWT_ENV.REFRESH_TOKEN_SECRET,
    issuer: JWT_ENV.TOKEN_ISSUER,
    accessTokenSeconds: 900,
    refreshTokenSeconds: 3600,
    ...overrides,
  });
}

test("signup returns tokens and a user id; the email is stored trimmed and lower-case", async (t) => {
  const { http } = await authTestApp(t, { profileFields: ["name"] });
  const email = uniqueEmail("Mixed.Case");
  const response = await request(http)
    .post("/auth/signup")
    .send({ email: `  ${email.toUpperCase()} `, password: PASSWORD, name: "Ada" })
    .expect(201);
  const { token, refreshToken, userId } = response.body.data;
  t.is(typeof token, "string");
  t.is(typeof refreshToken, "string");
  t.is(response.headers["cache-control"], "no-store");
  const stored = await TestUser.findById(userId).lean();
  t.is(stored?.email, email.toLowerCase());
  t.is(stored?.name, "Ada");
  t.is(stored?.admin, false);
});

test("duplicate signup is 409, case-insensitively", async (t) => {
  const { http } = await authTestApp(t);
  const { email } = await signup(http);
  const again = await request(http).post("/auth/signup").send({ email: email.toUpperCase(), password: PASSWORD }).expect(409);
  t.is(code(again), AuthErrors.EMAIL_TAKEN.code);
});

test("signup is refused when SIGNUP_DISABLED=true", async (t) => {
  const { http } = await authTestApp(t, {}, { SIGNUP_DISABLED: "true" });
  const response = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(403);
  t.is(code(response), AuthErrors.SIGNUP_DISABLED.code);
});

test("signup cannot set admin, disabled, deleted or ids: 400 and nothing is created", async (t) => {
  const { http } = await authTestApp(t, { profileFields: ["name"] });
  const refused: Array<[Record<string, unknown>, string]> = [
    [{ admin: true }, ValidationErrors.READ_ONLY_FIELD.code],
    [{ disabled: true }, ValidationErrors.READ_ONLY_FIELD.code],
    [{ deleted: true }, ValidationErrors.READ_ONLY_FIELD.code],
    [{ _id: "66f000000000000000000001" }, ValidationErrors.READ_ONLY_FIELD.code],
    [{ githubId: "1" }, ValidationErrors.READ_ONLY_FIELD.code],
    [{ unknown: 1 }, ValidationErrors.UNKNOWN_FIELD.code],
  ];
  for (const [extra, expected] of refused) {
    const email = uniqueEmail();
    const response = await request(http).post("/auth/signup").send({ email, password: PASSWORD, ...extra }).expect(400);
    t.is(code(response), expected);
    t.is(response.body.errors[0].source.pointer, `/${Object.keys(extra)[0]}`);
    t.is(await TestUser.findOne({ email }).lean(), null);
  }
  const operator = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD, name: { $gt: "" } }).expect(400);
  t.is(code(operator), ValidationErrors.OPERATOR_IN_BODY.code);
  const dotted = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD, name: { "admin.x": true } }).expect(400);
  t.is(code(dotted), ValidationErrors.OPERATOR_IN_BODY.code);
});

test("signup validates the email and the password policy", async (t) => {
  const { http } = await authTestApp(t);
  const badEmail = await request(http).post("/auth/signup").send({ email: "not-an-email", password: PASSWORD }).expect(400);
  t.is(code(badEmail), ValidationErrors.INVALID_BODY.code);
  t.is(badEmail.body.errors[0].source.pointer, "/email");
  // The message says what is wrong, not which regular expression failed.
  t.is(badEmail.body.errors[0].detail, "email: must be an email address");
  const control = await request(http).post("/auth/signup").send({ email: "nul\u0000x@example.com", password: PASSWORD }).expect(400);
  t.is(code(control), ValidationErrors.INVALID_BODY.code);
  t.is(control.body.errors[0].source.pointer, "/email");
  // Every password outside the policy, the empty one and one over the login body's cap included, hears the policy's rule.
  for (const password of ["short", "", "x".repeat(1025)]) {
    const weak = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password }).expect(400);
    t.is(code(weak), AuthErrors.WEAK_PASSWORD.code);
    t.is(weak.body.errors[0].source.pointer, "/password");
    t.is(weak.body.errors[0].detail, "password must be 8 to 256 characters");
  }
  const numeric = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: 12345678 }).expect(400);
  t.is(code(numeric), ValidationErrors.INVALID_BODY.code);
  t.is(numeric.body.errors[0].source.pointer, "/password");
  t.is(code(await request(http).post("/auth/signup").send([1, 2]).expect(400)), ValidationErrors.INVALID_BODY.code);
});

test("login succeeds with the right password, case-insensitively", async (t) => {
  const { http } = await authTestApp(t);
  const { email, userId } = await signup(http);
  const response = await request(http).post("/auth/login").send({ email: email.toUpperCase(), password: PASSWORD }).expect(200);
  t.is(response.body.data.userId, userId);
  t.truthy(response.body.data.token);
  t.truthy(response.body.data.refreshToken);
});

test("a wrong password and an unknown email get the same answer and both run the KDF", async (t) => {
  const { http, hasher } = await authTestApp(t);
  const { email } = await signup(http);

  const before = hasher.verifications;
  const wrong = await request(http).post("/auth/login").send({ email, password: "wrong password!" }).expect(401);
  t.is(hasher.verifications, before + 1);
  const unknown = await request(http).post("/auth/login").send({ email: uniqueEmail("nobody"), password: "wrong password!" }).expect(401);
  t.is(hasher.verifications, before + 2);

  t.is(code(wrong), AuthErrors.INVALID_CREDENTIALS.code);
  const strip = (body: { errors: Array<Record<string, unknown>> }) => body.errors.map(({ status, title, code, detail }) => ({ status, title, code, detail }));
  t.deepEqual(strip(unknown.body), strip(wrong.body));
});

test("GET /auth/me returns the user without secrets; no token → 401", async (t) => {
  const { http } = await authTestApp(t, { profileFields: ["name"] });
  const { token, userId, email } = await signup(http, uniqueEmail(), { name: "Grace" });
  const me = await request(http).get("/auth/me").set("Authorization", `Bearer ${token}`).expect(200);
  t.like(me.body.data, { id: userId, email, name: "Grace", admin: false, disabled: false });
  t.false(JSON.stringify(me.body).includes("scrypt$"));
  const anonymous = await request(http).get("/auth/me").expect(401);
  t.is(code(anonymous), HttpErrors.UNAUTHENTICATED.code);
});

test("with TOKEN_AUDIENCE, tokens carry it, and tokens for another service (same secrets and issuer) or for none are refused", async (t) => {
  const { http } = await authTestApp(t, {}, { TOKEN_AUDIENCE: "orders-api" });
  const { token, refreshToken, userId } = await signup(http);
  const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { aud?: string };
  t.is(claims.aud, "orders-api");
  await request(http).get("/auth/me").set("Authorization", `Bearer ${token}`).expect(200);
  const rotated = await request(http).post("/auth/refresh_token").send({ refreshToken }).expect(200);
  await request(http).get("/auth/me").set("Authorization", `Bearer ${rotated.body.data.token as string}`).expect(200);

  const me = (bearer: string) => request(http).get("/auth/me").set("Authorization", `Bearer ${bearer}`).expect(401);
  t.is(code(await me(await tokenService({ audience: "billing-api" }).signAccessToken(userId))), AuthErrors.TOKEN_INVALID.code);
  t.is(code(await me(await tokenService().signAccessToken(userId))), AuthErrors.TOKEN_INVALID.code);
  const billingRefresh = await tokenService({ audience: "billing-api" }).signRefreshToken(userId, "family-1", "token-1");
  t.is(code(await request(http).post("/auth/refresh_token").send({ refreshToken: billingRefresh.token }).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("tampered, alg:none, expired, wrong-issuer and refresh tokens are refused as access tokens", async (t) => {
  const { http } = await authTestApp(t);
  const { token, refreshToken, userId } = await signup(http);
  const me = (bearer: string) => request(http).get("/auth/me").set("Authorization", `Bearer ${bearer}`).expect(401);

  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
  const tampered = [header, Buffer.from(JSON.stringify({ ...claims, admin: true })).toString("base64url"), signature].join(".");
  t.is(code(await me(tampered)), AuthErrors.TOKEN_INVALID.code);

  const noneHeader = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url");
  t.is(code(await me(`${noneHeader}.${payload}.`)), AuthErrors.TOKEN_INVALID.code);

  const expired = await tokenService({ now: () => new Date(Date.now() - 2 * 3_600_000) }).signAccessToken(userId);
  t.is(code(await me(expired)), AuthErrors.TOKEN_EXPIRED.code);

  const foreign = await tokenService({ issuer: "someone-else" }).signAccessToken(userId);
  t.is(code(await me(foreign)), AuthErrors.TOKEN_INVALID.code);

  // Signed with the right secret and issuer, but without the access-token markers.
  const now = Math.floor(Date.now() / 1000);
  const unmarked = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(JWT_ENV.TOKEN_ISSUER)
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(new TextEncoder().encode(JWT_ENV.TOKEN_SECRET));
  t.is(code(await me(unmarked)), AuthErrors.TOKEN_INVALID.code);

  t.is(code(await me(refreshToken)), AuthErrors.TOKEN_INVALID.code);
  t.is(code(await me("")), AuthErrors.TOKEN_INVALID.code);
});

test("an access token is not a refresh token", async (t) => {
  const { http } = await authTestApp(t);
  const { token } = await signup(http);
  const response = await request(http).post("/auth/refresh_token").send({ refreshToken: token }).expect(401);
  t.is(code(response), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("refresh rotates; reusing a rotated token revokes the whole family", async (t) => {
  const { http } = await authTestApp(t);
  const first = await signup(http);
  const rotated = await request(http).post("/auth/refresh_token").send({ refreshToken: first.refreshToken }).expect(200);
  const second = rotated.body.data as { token: string; refreshToken: string };
  t.not(second.refreshToken, first.refreshToken);
  await request(http).get("/auth/me").set("Authorization", `Bearer ${second.token}`).expect(200);

  const reuse = await request(http).post("/auth/refresh_token").send({ refreshToken: first.refreshToken }).expect(401);
  t.is(code(reuse), AuthErrors.REFRESH_TOKEN_REUSED.code);
  // The legitimate successor is revoked too: the thief and the victim both sign in again.
  const successor = await request(http).post("/auth/refresh_token").send({ refreshToken: second.refreshToken }).expect(401);
  t.is(code(successor), AuthErrors.REFRESH_TOKEN_INVALID.code);

  // Another sign-in (another family) is unaffected.
  const other = await request(http).post("/auth/login").send({ email: first.email, password: PASSWORD }).expect(200);
  await request(http).post("/auth/refresh_token").send({ refreshToken: other.body.data.refreshToken }).expect(200);
});

test("an expired refresh token is AUTH_REFRESH_TOKEN_INVALID, not the access token's AUTH_TOKEN_EXPIRED", async (t) => {
  const { http } = await authTestApp(t, {}, { REFRESH_TOKEN_EXPIRES_IN: "1s" });
  const { userId } = await signup(http);
  const past = tokenService({ now: () => new Date(Date.now() - 60_000), refreshTokenSeconds: 1 });
  const { token } = await past.signRefreshToken(userId, "family", "token");
  const response = await request(http).post("/auth/refresh_token").send({ refreshToken: token }).expect(401);
  t.is(code(response), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("a user disabled mid-session is refused at once: requests, refresh and login", async (t) => {
  const { http } = await authTestApp(t);
  const { token, refreshToken, userId, email } = await signup(http);
  await request(http).get("/auth/me").set("Authorization", `Bearer ${token}`).expect(200);
  await TestUser.updateOne({ _id: userId }, { $set: { disabled: true } });

  t.is(code(await request(http).get("/auth/me").set("Authorization", `Bearer ${token}`).expect(401)), AuthErrors.USER_DISABLED.code);
  t.is(code(await request(http).post("/auth/refresh_token").send({ refreshToken }).expect(401)), AuthErrors.USER_DISABLED.code);
  t.is(code(await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(401)), AuthErrors.USER_DISABLED.code);
  // A wrong password for a disabled user reveals nothing more than for anyone else.
  t.is(code(await request(http).post("/auth/login").send({ email, password: "nope nope nope" }).expect(401)), AuthErrors.INVALID_CREDENTIALS.code);
});

test("a deleted user is refused at once", async (t) => {
  const { http } = await authTestApp(t);
  const { token, refreshToken, userId, email } = await signup(http);
  await TestUser.updateOne({ _id: userId }, { $set: { deleted: true } });
  t.is(code(await request(http).get("/auth/me").set("Authorization", `Bearer ${token}`).expect(401)), AuthErrors.USER_NOT_FOUND.code);
  t.is(code(await request(http).post("/auth/refresh_token").send({ refreshToken }).expect(401)), AuthErrors.USER_NOT_FOUND.code);
  t.is(code(await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(401)), AuthErrors.INVALID_CREDENTIALS.code);
});

test("PATCH /auth/me updates allowed fields only; admin, disabled, email… are 400 and never applied", async (t) => {
  const { http } = await authTestApp(t, { profileFields: ["name", "bio"] });
  const { token, userId, email } = await signup(http);
  const auth = { Authorization: `Bearer ${token}` };
  const updated = await request(http).patch("/auth/me").set(auth).send({ name: "Linus", bio: "hi" }).expect(200);
  t.like(updated.body.data, { id: userId, name: "Linus", bio: "hi" });

  for (const body of [{ admin: true }, { disabled: true }, { deleted: true }, { email: "x@example.com" }, { _id: "66f000000000000000000001" }, { password: "new password 1" }, { name: "ok", admin: true }]) {
    const response = await request(http).patch("/auth/me").set(auth).send(body).expect(400);
    t.is(code(response), ValidationErrors.READ_ONLY_FIELD.code);
  }
  t.is(code(await request(http).patch("/auth/me").set(auth).send({ nickname: "x" }).expect(400)), ValidationErrors.UNKNOWN_FIELD.code);
  t.is(code(await request(http).patch("/auth/me").set(auth).send({ bio: { $set: { admin: true } } }).expect(400)), ValidationErrors.OPERATOR_IN_BODY.code);
  const stored = await TestUser.findById(userId).lean();
  t.like(stored, { admin: false, disabled: false, deleted: false, email, name: "Linus" });
  await request(http).patch("/auth/me").send({ name: "anonymous" }).expect(401);
});

test("profile values are checked against the user schema, never coerced: a number is no name, an object is VALIDATION_INVALID_BODY", async (t) => {
  const { http } = await authTestApp(t, { profileFields: ["name"] });
  const { token, userId } = await signup(http, uniqueEmail(), { name: "Ada" });
  const auth = { Authorization: `Bearer ${token}` };
  for (const name of [123, { a: 1 }, [1], true]) {
    const response = await request(http).patch("/auth/me").set(auth).send({ name }).expect(400);
    t.is(code(response), ValidationErrors.INVALID_BODY.code, JSON.stringify(name));
    t.is(response.body.errors[0].source.pointer, "/name");
  }
  const refused = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD, name: 42 }).expect(400);
  t.is(code(refused), ValidationErrors.INVALID_BODY.code);
  t.is((await TestUser.findById(userId).lean())?.name, "Ada");
  t.is((await request(http).patch("/auth/me").set(auth).send({ name: "Grace" }).expect(200)).body.data.name, "Grace");
});

test("failed logins are rate-limited per account with 429 and Retry-After, even for the right password", async (t) => {
  const { http } = await authTestApp(t, { rateLimits: { perAccount: { points: 3, durationSeconds: 600 } } });
  const { email } = await signup(http);
  for (let i = 0; i < 3; i++) await request(http).post("/auth/login").send({ email, password: `wrong password ${i}` }).expect(401);
  const limited = await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(429);
  t.is(code(limited), AuthErrors.RATE_LIMITED.code);
  t.true(Number(limited.headers["retry-after"]) >= 1);
  // Another account from the same IP is not blocked by this account's budget.
  const other = await signup(http);
  await request(http).post("/auth/login").send({ email: other.email, password: PASSWORD }).expect(200);
});

test("parallel wrong passwords cannot outrun the limit: at most the budget are checked, the rest 429", async (t) => {
  const { http, hasher } = await authTestApp(t, { rateLimits: { perAccount: { points: 3, durationSeconds: 600 }, perIp: { points: 5, durationSeconds: 600 } } });
  const { email } = await signup(http);
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => request(http).post("/auth/login").send({ email, password: `wrong password ${i}` })));
  t.is(responses.filter((response) => response.status === 401).length, 3);
  t.true(responses.filter((response) => response.status !== 401).every((response) => response.status === 429 && code(response) === AuthErrors.RATE_LIMITED.code));
  t.is(hasher.verifications, 3);
  // The per-IP budget holds too, across accounts: 2 points left of 5.
  const others = await Promise.all(Array.from({ length: 10 }, () => request(http).post("/auth/login").send({ email: uniqueEmail(), password: "wrong password" })));
  t.is(others.filter((response) => response.status === 401).length, 2);
  t.is(hasher.verifications, 5);
});

test("failed logins are rate-limited per IP across accounts", async (t) => {
  const { http } = await authTestApp(t, { rateLimits: { perIp: { points: 3, durationSeconds: 600 } } });
  for (let i = 0; i < 3; i++) await request(http).post("/auth/login").send({ email: uniqueEmail(), password: "wrong password" }).expect(401);
  const limited = await request(http).post("/auth/login").send({ email: uniqueEmail(), password: "wrong password" }).expect(429);
  t.is(code(limited), AuthErrors.RATE_LIMITED.code);
  t.truthy(limited.headers["retry-after"]);
});

test("the password appears in no response and no log line", async (t) => {
  const { http, logs } = await authTestApp(t, { profileFields: ["name"] });
  const secret = "UniqueSecretPassword-7f3a9c";
  const email = uniqueEmail();
  const bodies: string[] = [];
  const record = (response: request.Response) => bodies.push(JSON.stringify(response.body), JSON.stringify(response.headers));
  record(await request(http).post("/auth/signup").send({ email, password: secret, name: "P" }).expect(201));
  const login = await request(http).post("/auth/login").send({ email, password: secret }).expect(200);
  record(login);
  record(await request(http).post("/auth/login").send({ email, password: `${secret}-wrong` }).expect(401));
  record(await request(http).post("/auth/signup").send({ email, password: secret }).expect(409));
  record(await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: secret, admin: true }).expect(400));
  const auth = { Authorization: `Bearer ${login.body.data.token}` };
  record(await request(http).get("/auth/me").set(auth).expect(200));
  record(await request(http).patch("/auth/me").set(auth).send({ password: secret }).expect(400));

  t.true(logs.lines.length > 0, "requests were logged");
  for (const text of [...bodies, logs.text()]) {
    t.false(text.includes(secret));
    t.false(text.includes("scrypt$"));
  }
});

test("requests without credentials stay anonymous; other schemes are left alone", async (t) => {
  const { http } = await authTestApp(t, {}, {}, (app) => {
    const router = express.Router();
    router.get("/whoami", (req, res) => res.json({ data: req.user ?? null }));
    app.register(router);
  });
  t.is((await request(http).get("/whoami").expect(200)).body.data, null);
  t.is((await request(http).get("/whoami").set("Authorization", "Basic dXNlcjpwYXNz").expect(200)).body.data, null);
  t.is(code(await request(http).get("/whoami").set("Authorization", "Bearer garbage").expect(401)), AuthErrors.TOKEN_INVALID.code);
});

test("req.user is the user document with a string id, and log lines carry the user id", async (t) => {
  const { http, logs } = await authTestApp(t, { profileFields: ["name"] }, {}, (app) => {
    const router = express.Router();
    router.get("/whoami", (req, res) => res.json({ data: { ...req.user, idType: typeof req.user?.id } }));
    app.register(router);
  });
  const { token, userId, email } = await signup(http, uniqueEmail(), { name: "Katherine" });
  const response = await request(http).get("/whoami").set("Authorization", `Bearer ${token}`).expect(200);
  t.like(response.body.data, { id: userId, idType: "string", _id: userId, email, admin: false, disabled: false, name: "Katherine" });
  t.true(logs.lines.some((line) => line.userId === userId), "a log line carries the user id");
});

test("a stale token does not stop a client from logging in or refreshing", async (t) => {
  const { http } = await authTestApp(t);
  const { email, refreshToken } = await signup(http);
  const stale = { Authorization: "Bearer stale.or.garbage" };
  await request(http).post("/auth/login").set(stale).send({ email, password: PASSWORD }).expect(200);
  const refreshed = await request(http).post("/auth/refresh_token").set(stale).send({ refreshToken }).expect(200);
  t.truthy(refreshed.body.data.token);
  // Spelled the other ways express routes to the same handlers.
  await request(http).post("/auth/login/").set(stale).send({ email, password: PASSWORD }).expect(200);
  await request(http).post("/Auth/LOGIN").set(stale).send({ email, password: PASSWORD }).expect(200);
  await request(http).post("/AUTH/SIGNUP/").set(stale).send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
  // Other routes still judge the token.
  await request(http).get("/auth/me/").set(stale).expect(401);
});

test("AUTHENTICATOR authenticates tokens for socket servers", async (t) => {
  const { app, http } = await authTestApp(t);
  const { token, userId } = await signup(http);
  const authenticator = app.kernel.container.resolve(AUTHENTICATOR);
  t.is((await authenticator.authenticateToken(token)).id, userId);
  const error = (await t.throwsAsync(authenticator.authenticateToken("nope"))) as { status?: number; code?: string };
  t.is(error.status, 401);
  t.is(error.code, AuthErrors.TOKEN_INVALID.code);
});

test("the auth services exist only while the plugin runs: AUTH_NOT_STARTED before start and after stop", async (t) => {
  const early: Array<string | undefined> = [];
  // Registered after auth, so its register() sees auth's bindings before anything started.
  const probe: SvcPlugin = {
    name: "auth-probe",
    dependsOn: ["auth"],
    register(ctx) {
      for (const key of [AUTHENTICATOR, AUTHENTICATION_MIDDLEWARE, ACCOUNTS] as Array<Token<unknown>>) {
        try {
          ctx.container.resolve(key);
          early.push("resolved");
        } catch (error) {
          early.push((error as { code?: string }).code);
        }
      }
    },
  };
  const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: TestUser })).register(probe);
  t.teardown(() => app.stop());
  await app.build();
  t.deepEqual(early, [AuthErrors.NOT_STARTED.code, AuthErrors.NOT_STARTED.code, AuthErrors.NOT_STARTED.code]);
  t.is(typeof app.kernel.container.resolve(AUTHENTICATOR).authenticateToken, "function");
  t.is(typeof app.kernel.container.resolve(AUTHENTICATION_MIDDLEWARE), "function");
  t.is(typeof app.kernel.container.resolve(ACCOUNTS).createPasswordUser, "function");
  await app.stop();
  t.is((t.throws(() => app.kernel.container.resolve(AUTHENTICATOR)) as { code?: string }).code, AuthErrors.NOT_STARTED.code);
});

test("ACCOUNTS creates users server-side (admin included) under the password policy and resets passwords", async (t) => {
  const { app, http } = await authTestApp(t);
  const accounts = app.kernel.container.resolve(ACCOUNTS);
  const email = uniqueEmail("seeded-admin");
  const admin = await accounts.createPasswordUser({ email: email.toUpperCase(), admin: true }, PASSWORD);
  t.like(admin, { email, admin: true });
  const login = await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(200);
  t.is(login.body.data.userId, admin.id);

  const weak = (await t.throwsAsync(accounts.createPasswordUser({ email: uniqueEmail() }, "short"))) as { code?: string };
  t.is(weak.code, AuthErrors.WEAK_PASSWORD.code);
  const taken = (await t.throwsAsync(accounts.createPasswordUser({ email }, PASSWORD))) as { code?: string };
  t.is(taken.code, AuthErrors.EMAIL_TAKEN.code);

  await accounts.setPassword(admin.id, "a brand new password");
  t.is(code(await request(http).post("/auth/refresh_token").send({ refreshToken: login.body.data.refreshToken }).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
  await request(http).post("/auth/login").send({ email, password: "a brand new password" }).expect(200);

  for (const userId of ["66f000000000000000000001", "not-an-id", ""]) {
    const missing = (await t.throwsAsync(accounts.setPassword(userId, "a brand new password"))) as { code?: string };
    t.is(missing.code, AuthErrors.USER_NOT_FOUND.code, userId);
  }
});

test("setPassword ends the user's access tokens at once (AUTH_TOKEN_REVOKED); later sign-ins and their refreshes work; other users keep theirs", async (t) => {
  const { app, http } = await authTestApp(t);
  const accounts = app.kernel.container.resolve(ACCOUNTS);
  const authenticator = app.kernel.container.resolve(AUTHENTICATOR);
  const alice = await signup(http);
  const bob = await signup(http);
  const me = (token: string) => request(http).get("/auth/me").set("authorization", `Bearer ${token}`);
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
  await me(alice.token).expect(200);

  await accounts.setPassword(alice.userId, "a brand new password");
  t.is(code(await me(alice.token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  t.is(((await t.throwsAsync(authenticator.authenticateToken(alice.token))) as { code?: string }).code, AuthErrors.TOKEN_REVOKED.code);
  await me(bob.token).expect(200);

  const second = (await request(http).post("/auth/login").send({ email: alice.email, password: "a brand new password" }).expect(200)).body.data;
  t.is(claimsOf(second.token).sv, 1);
  const shown = (await me(second.token).expect(200)).body.data as Record<string, unknown>;
  t.false("signInVersion" in shown);
  const refreshed = (await request(http).post("/auth/refresh_token").send({ refreshToken: second.refreshToken }).expect(200)).body.data;
  t.is(claimsOf(refreshed.token).sv, 1);
  await me(refreshed.token).expect(200);

  await accounts.setPassword(alice.userId, "and another new one");
  for (const token of [second.token, refreshed.token]) t.is(code(await me(token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  const third = (await request(http).post("/auth/login").send({ email: alice.email, password: "and another new one" }).expect(200)).body.data;
  await me(third.token).expect(200);
  // Hidden from every ordinary read of the user; stored for the check.
  t.false("signInVersion" in ((await TestUser.findById(alice.userId).lean()) ?? {}));
  t.is((await TestUser.findById(alice.userId).select("+signInVersion").lean())?.signInVersion, 2);

  // Server code ends the sign-ins without touching the password.
  await accounts.endSignIns(alice.userId);
  t.is(code(await me(third.token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  await request(http).post("/auth/refresh_token").send({ refreshToken: third.refreshToken }).expect(401);
  await request(http).post("/auth/login").send({ email: alice.email, password: "and another new one" }).expect(200);
  await me(bob.token).expect(200);
  for (const nobody of ["66f000000000000000000001", "not-an-id", ""]) await t.notThrowsAsync(accounts.endSignIns(nobody), nobody);
});

test("under session auth nothing binds ACCOUNTS (better-auth owns passwords)", async (t) => {
  const { app } = await authTestApp(t, {}, SESSION_ENV);
  t.is(app.kernel.container.tryResolve(ACCOUNTS), undefined);
});

test("custom JWT claims come from generateJWTPayload", async (t) => {
  const { http } = await authTestApp(t, { generateJWTPayload: (user) => ({ admin: user.admin === true, plan: "pro", sub: "forged", sv: 7 }) });
  const { token, userId } = await signup(http);
  const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
  t.like(claims, { sub: userId, plan: "pro", admin: false, iss: JWT_ENV.TOKEN_ISSUER });
  t.false("sv" in claims, "the sign-in version is the framework's claim");
});

test("missing variables fail the start naming them; equal or weak secrets and forbidden or unknown profile fields are refused", async (t) => {
  const build = async (env: Record<string, string>) => {
    const app = (await createTestApp({ env })).register(authPlugin({ userModel: TestUser }));
    t.teardown(() => app.stop());
    return app.build();
  };
  const missing = (await t.throwsAsync(build({ TOKEN_SECRET: JWT_ENV.TOKEN_SECRET }))) as Error & { code?: string };
  t.is(missing.code, ConfigErrors.INVALID_ENVIRONMENT.code);
  for (const name of ["TOKEN_ISSUER", "REFRESH_TOKEN_SECRET", "SESSION_SECRET"]) t.true(missing.message.includes(name), name);

  const same = (await t.throwsAsync(build({ ...JWT_ENV, REFRESH_TOKEN_SECRET: JWT_ENV.TOKEN_SECRET }))) as { code?: string };
  t.is(same.code, AuthErrors.SAME_SECRETS.code);

  const weak = (await t.throwsAsync(build({ ...JWT_ENV, NODE_ENV: "production", DB_URI: "mongodb://127.0.0.1:1/x", TOKEN_SECRET: "short" }))) as { code?: string };
  t.is(weak.code, AuthErrors.WEAK_SECRET.code);

  const badLifetime = (await t.throwsAsync(build({ ...JWT_ENV, TOKEN_EXPIRES_IN: "soon" }))) as Error & { code?: string };
  t.is(badLifetime.code, ConfigErrors.INVALID_ENVIRONMENT.code);
  t.true(badLifetime.message.includes("TOKEN_EXPIRES_IN"));

  const forbidden = (await t.throwsAsync(async () => {
    const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: TestUser, profileFields: ["name", "admin"] }));
    t.teardown(() => app.stop());
    await app.build();
  })) as { code?: string };
  t.is(forbidden.code, AuthErrors.PROFILE_FIELD_FORBIDDEN.code);

  const unknown = (await t.throwsAsync(async () => {
    const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: TestUser, profileFields: ["name", "nickname"] }));
    t.teardown(() => app.stop());
    await app.build();
  })) as Error & { code?: string };
  t.is(unknown.code, AuthErrors.PROFILE_FIELD_UNKNOWN.code);
  t.true(unknown.message.includes('"nickname"'));
});

test("roles, which grant admin permissions, can never be a profile field: the start fails, and a sign-up naming them is refused", async (t) => {
  const schema = TestUser.schema.clone();
  schema.add({ roles: { type: [String], description: "Role names; each grants the role's admin permissions" } });
  const RoleUser = mongoose.models.AuthRoleTestUser ?? mongoose.model("AuthRoleTestUser", schema);
  const opened = (await t.throwsAsync(async () => {
    const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: RoleUser, profileFields: ["name", "roles"] }));
    t.teardown(() => app.stop());
    await app.build();
  })) as { code?: string };
  t.is(opened.code, AuthErrors.PROFILE_FIELD_FORBIDDEN.code);

  const { http } = await authTestApp(t, { userModel: RoleUser, profileFields: ["name"] });
  const email = uniqueEmail();
  const refused = await request(http).post("/auth/signup").send({ email, password: PASSWORD, roles: ["admin"] }).expect(400);
  t.is(code(refused), ValidationErrors.READ_ONLY_FIELD.code);
  t.is(await RoleUser.countDocuments({ email }), 0);
});

test("the routes are documented in OpenAPI with the bearer scheme", async (t) => {
  const { http } = await authTestApp(t);
  const document = (await request(http).get("/openapi.json").expect(200)).body;
  t.truthy(document.paths["/auth/login"].post);
  t.truthy(document.paths["/auth/me"].patch);
  t.deepEqual(document.components.securitySchemes.bearerAuth, { type: "http", scheme: "bearer", bearerFormat: "JWT" });
});
