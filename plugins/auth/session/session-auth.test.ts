import test from "ava";
import express from "express";
import nock from "nock";
import request from "supertest";
import { AUTHENTICATOR } from "../../../contracts/authenticator.js";
import type { SvcApp } from "../../../hosts/svc-app.js";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { ConfigErrors } from "../../../kernel/environment.js";
import { ValidationErrors } from "../../validation/index.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { AuthErrors } from "../errors.js";
import {
  authTestApp,
  errorCode as code,
  loopbackOnlyNetwork,
  SESSION_ENV as SESSION_VARIABLES,
  TestUser,
  uniqueEmail,
} from "../../../test/support/auth-test-app.js";

type Http = Parameters<typeof request>[0];

const APP = "https://app.example.com";
const SESSION_ENV = { ...SESSION_VARIABLES, GITHUB_CLIENT_ID: "gh-session-client", GITHUB_CLIENT_SECRET: "gh-session-secret" };
const PASSWORD = "correct horse battery staple";

loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

const whoami = (app: SvcApp) => {
  const router = express.Router();
  router.get("/whoami", (req, res) => res.json({ data: req.user ?? null }));
  app.register(router);
};

function sessionApp(t: Parameters<typeof authTestApp>[0], env: Record<string, string> = {}) {
  return authTestApp(t, { sessionAuth: { trustedOrigins: [APP] } }, { ...SESSION_ENV, ...env }, whoami);
}

/** A session app and its OpenAPI document, to check answers against. */
async function sessionAppWithDocument(t: Parameters<typeof authTestApp>[0]) {
  const started = await sessionApp(t);
  return { ...started, document: (await request(started.http).get("/openapi.json").expect(200)).body as { paths: Record<string, Record<string, unknown>> } };
}

function cookiesOf(response: request.Response): string[] {
  return ([] as string[]).concat(response.headers["set-cookie"] ?? []);
}

function cookieHeader(response: request.Response): string {
  return cookiesOf(response)
    .map((line) => line.split(";")[0]!)
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

async function signUp(http: Http, email = uniqueEmail()) {
  const response = await request(http).post("/api/auth/signup/email").set("Origin", APP).send({ email, password: PASSWORD, name: "Ada" }).expect(201);
  return { email, response, cookie: cookieHeader(response), ...(response.body.data as { token: string; userId: string }) };
}

test("sign-up sets an httpOnly SameSite=Lax session cookie and returns a session token", async (t) => {
  const { http } = await sessionApp(t);
  const { response, token, userId, email } = await signUp(http);
  const session = cookiesOf(response).find((line) => line.includes("session_token="))!;
  t.truthy(session);
  t.regex(session, /HttpOnly/i);
  t.regex(session, /SameSite=Lax/i);
  t.notRegex(session, /Secure/i, "not Secure outside production");
  t.truthy(token);
  t.like(response.body.data.user, { id: userId, email, admin: false });

  const host = await TestUser.findById(userId).lean();
  t.is(host?.email, email);
  t.is(typeof host?.federatedId, "string");
});

test("the name given at sign-up fills the host user's name when it is a profile field, and only then", async (t) => {
  const withName = await authTestApp(t, { sessionAuth: { trustedOrigins: [APP] }, profileFields: ["name"] }, SESSION_ENV, whoami);
  const ada = await signUp(withName.http);
  t.is(ada.response.body.data.user.name, "Ada");
  t.is((await TestUser.findById(ada.userId).lean())?.name, "Ada");
  // A blank name is no name.
  const blank = await request(withName.http).post("/api/auth/signup/email").set("Origin", APP).send({ email: uniqueEmail(), password: PASSWORD, name: "   " }).expect(201);
  t.is((await TestUser.findById(blank.body.data.userId).lean())?.name, undefined);

  // Without it among the profile fields, the host's `name` is not the sign-up's to set.
  const { http } = await sessionApp(t);
  const other = await signUp(http);
  t.is((await TestUser.findById(other.userId).lean())?.name, undefined);
});

test("sign-in, session, cookie and Bearer access, sign-out", async (t) => {
  const { http } = await sessionApp(t);
  const { email, userId } = await signUp(http);
  const signIn = await request(http).post("/api/auth/signin/email").send({ email: email.toUpperCase(), password: PASSWORD }).expect(200);
  const cookie = cookieHeader(signIn);
  const { token } = signIn.body.data;
  t.is(signIn.body.data.userId, userId);

  const session = await request(http).get("/api/auth/session").set("Cookie", cookie).expect(200);
  t.is(session.body.data.userId, userId);
  t.is((await request(http).get("/whoami").set("Cookie", cookie).expect(200)).body.data.id, userId);
  t.is((await request(http).get("/whoami").set("Authorization", `Bearer ${token}`).expect(200)).body.data.id, userId);
  t.is((await request(http).get("/whoami").expect(200)).body.data, null);

  await request(http).post("/api/auth/signout").set("Cookie", cookie).set("Origin", APP).expect(200);
  t.is(code(await request(http).get("/whoami").set("Cookie", cookie).expect(401)), AuthErrors.SESSION_INVALID.code);
  t.is(code(await request(http).get("/whoami").set("Authorization", `Bearer ${token}`).expect(401)), AuthErrors.SESSION_INVALID.code);
  t.is((await request(http).get("/api/auth/session").set("Cookie", cookie).expect(200)).body.data, null);
});

test("the session list: each device with its user agent and IP, the caller's marked current; signing one out ends it at once, the others go on; ids of other users' sessions are 404", async (t) => {
  const { http, document } = await sessionAppWithDocument(t);
  const { email } = await signUp(http);
  const signIn = (userAgent: string) => request(http).post("/api/auth/signin/email").set("user-agent", userAgent).send({ email, password: PASSWORD }).expect(200);
  const phone = (await signIn("LostPhone/1.0")).body.data.token as string;
  const laptop = await signIn("Laptop/2.0");
  const cookie = cookieHeader(laptop);

  const listed = await request(http).get("/api/auth/sessions").set("Cookie", cookie).expect(200);
  t.is(documentedAnswerProblem(document, "get", "/api/auth/sessions", listed), undefined);
  const sessions = listed.body.data as { id: string; userAgent?: string; ip?: string; current: boolean }[];
  t.is(sessions.length, 3, "the sign-up's session and two sign-ins");
  t.deepEqual(
    sessions.filter((session) => session.userAgent !== undefined && session.userAgent !== "node" && !session.userAgent.startsWith("node-superagent")).map((session) => [session.userAgent, session.current]),
    [
      ["Laptop/2.0", true],
      ["LostPhone/1.0", false],
    ],
  );
  const lost = sessions.find((session) => session.userAgent === "LostPhone/1.0")!;

  // Another user cannot end it, nor see it; a cookie from an untrusted origin cannot either.
  const stranger = await signUp(http);
  t.is(code(await request(http).delete(`/api/auth/sessions/${lost.id}`).set("Authorization", `Bearer ${stranger.token}`).expect(404)), AuthErrors.SIGN_IN_NOT_FOUND.code);
  t.false(((await request(http).get("/api/auth/sessions").set("Authorization", `Bearer ${stranger.token}`).expect(200)).body.data as { id: string }[]).some((session) => session.id === lost.id));
  t.is(code(await request(http).delete(`/api/auth/sessions/${lost.id}`).set("Cookie", cookie).set("Origin", "https://evil.example").expect(403)), AuthErrors.ORIGIN_NOT_TRUSTED.code);
  await request(http).get("/whoami").set("Authorization", `Bearer ${phone}`).expect(200);

  const ended = await request(http).delete(`/api/auth/sessions/${lost.id}`).set("Cookie", cookie).set("Origin", APP).expect(204);
  t.is(documentedAnswerProblem(document, "delete", "/api/auth/sessions/{id}", ended), undefined);
  t.is(code(await request(http).get("/whoami").set("Authorization", `Bearer ${phone}`).expect(401)), AuthErrors.SESSION_INVALID.code);
  t.is((await request(http).get("/whoami").set("Cookie", cookie).expect(200)).body.data.email, email);
  t.is(code(await request(http).delete(`/api/auth/sessions/${lost.id}`).set("Cookie", cookie).set("Origin", APP).expect(404)), AuthErrors.SIGN_IN_NOT_FOUND.code);
  // Without a session, both are 401.
  await request(http).get("/api/auth/sessions").expect(401);
  await request(http).delete(`/api/auth/sessions/${lost.id}`).expect(401);
});

test("an untrusted Origin is refused on state-changing requests", async (t) => {
  const { http } = await sessionApp(t);
  const { email, cookie } = await signUp(http);
  const evil = "https://evil.example";
  t.is(code(await request(http).post("/api/auth/signup/email").set("Origin", evil).send({ email: uniqueEmail(), password: PASSWORD }).expect(403)), AuthErrors.ORIGIN_NOT_TRUSTED.code);
  t.is(code(await request(http).post("/api/auth/signin/email").set("Origin", evil).send({ email, password: PASSWORD }).expect(403)), AuthErrors.ORIGIN_NOT_TRUSTED.code);
  t.is(code(await request(http).post("/api/auth/signout").set("Origin", evil).set("Cookie", cookie).expect(403)), AuthErrors.ORIGIN_NOT_TRUSTED.code);
  // The session survived the forged sign-out.
  t.truthy((await request(http).get("/api/auth/session").set("Cookie", cookie).expect(200)).body.data);
});

test("the session cookie is no ambient credential for other sites: an app route's state-changing request from an untrusted Origin is refused", async (t) => {
  const notes: string[] = [];
  const { http } = await authTestApp(t, { sessionAuth: { trustedOrigins: [APP] } }, SESSION_ENV, (app) => {
    whoami(app);
    const router = express.Router();
    router.post("/notes", (req, res) => {
      notes.push(String(req.user?.id ?? "anonymous"));
      res.status(201).json({ data: { by: req.user?.id ?? null } });
    });
    app.register(router);
  });
  const { cookie, token, userId } = await signUp(http);
  for (const origin of ["https://evil.example", "null", "https://app.example.com.evil.example"]) {
    // A form on another site (or a sibling subdomain, same-site for SameSite=Lax) posting with the user's cookie.
    const forged = await request(http).post("/notes").set("Cookie", cookie).set("Origin", origin).set("Content-Type", "text/plain").send("{}").expect(403);
    t.is(code(forged), AuthErrors.ORIGIN_NOT_TRUSTED.code, origin);
  }
  t.deepEqual(notes, []);
  // The app's own pages, clients that send no Origin, and Bearer tokens (never sent by a browser on its own) are served.
  t.is((await request(http).post("/notes").set("Cookie", cookie).set("Origin", APP).send({}).expect(201)).body.data.by, userId);
  t.is((await request(http).post("/notes").set("Cookie", cookie).send({}).expect(201)).body.data.by, userId);
  t.is((await request(http).post("/notes").set("Authorization", `Bearer ${token}`).set("Origin", "https://evil.example").send({}).expect(201)).body.data.by, userId);
  // Reading is not refused (CORS keeps the answer from another site's script).
  t.is((await request(http).get("/whoami").set("Cookie", cookie).set("Origin", "https://evil.example").expect(200)).body.data.id, userId);
});

test("a request without Origin and without a cookie is no browser's cross-site request: accepted, even with Fetch Metadata", async (t) => {
  const { http } = await sessionApp(t);
  const email = uniqueEmail();
  // Node's fetch (a server, a mobile app's runtime) sends Sec-Fetch-Mode but never Origin.
  const signedUp = await request(http).post("/api/auth/signup/email").set("Sec-Fetch-Mode", "cors").send({ email, password: PASSWORD }).expect(201);
  const signedIn = await request(http).post("/api/auth/signin/email").set("Sec-Fetch-Mode", "cors").send({ email, password: PASSWORD }).expect(200);
  t.is(signedIn.body.data.userId, signedUp.body.data.userId);
  await request(http).post("/api/auth/signout").set("Sec-Fetch-Mode", "cors").set("Authorization", `Bearer ${signedIn.body.data.token}`).expect(200);
  // A cookie without Origin could be an old browser's cross-site form: it needs a trusted Origin.
  const { cookie } = await signUp(http);
  t.is(code(await request(http).post("/api/auth/signout").set("Cookie", cookie).expect(403)), AuthErrors.ORIGIN_NOT_TRUSTED.code);
  t.truthy((await request(http).get("/api/auth/session").set("Cookie", cookie).expect(200)).body.data);
});

test("duplicate sign-up is 409, a wrong password 401, and failed sign-ins are rate-limited", async (t) => {
  const { http, logs } = await authTestApp(
    t,
    { sessionAuth: { trustedOrigins: [APP] }, rateLimits: { perAccount: { points: 2, durationSeconds: 600 } } },
    SESSION_ENV,
  );
  const { email } = await signUp(http);
  t.is(code(await request(http).post("/api/auth/signup/email").send({ email: email.toUpperCase(), password: PASSWORD }).expect(409)), AuthErrors.EMAIL_TAKEN.code);
  for (let i = 0; i < 2; i++) {
    t.is(code(await request(http).post("/api/auth/signin/email").send({ email, password: "wrong password" }).expect(401)), AuthErrors.INVALID_CREDENTIALS.code);
  }
  t.is(code(await request(http).post("/api/auth/signin/email").send({ email: uniqueEmail(), password: PASSWORD }).expect(401)), AuthErrors.INVALID_CREDENTIALS.code);
  // The log, like the answers, does not tell an unknown email from a wrong password.
  const warnings = logs.lines.filter((line) => line.level === "warn" || line.level === "error").map((line) => line.message);
  t.false(warnings.some((message) => /User not found|Invalid password|Password not found/.test(message)), JSON.stringify(warnings));
  const limited = await request(http).post("/api/auth/signin/email").send({ email, password: PASSWORD }).expect(429);
  t.is(code(limited), AuthErrors.RATE_LIMITED.code);
  t.truthy(limited.headers["retry-after"]);
});

test("parallel wrong passwords cannot outrun the sign-in limit: at most the budget reach better-auth, the rest 429", async (t) => {
  const { http } = await authTestApp(
    t,
    { sessionAuth: { trustedOrigins: [APP] }, rateLimits: { perAccount: { points: 2, durationSeconds: 600 } } },
    SESSION_ENV,
  );
  const { email } = await signUp(http);
  const responses = await Promise.all(Array.from({ length: 10 }, () => request(http).post("/api/auth/signin/email").send({ email, password: "wrong password" })));
  t.is(responses.filter((response) => response.status === 401).length, 2);
  t.true(responses.filter((response) => response.status !== 401).every((response) => response.status === 429 && code(response) === AuthErrors.RATE_LIMITED.code));
});

test("session bodies go through the shared validator; a short password is AUTH_WEAK_PASSWORD", async (t) => {
  const { http } = await sessionApp(t);
  const badEmail = await request(http).post("/api/auth/signup/email").send({ email: "not-an-email", password: PASSWORD }).expect(400);
  t.is(code(badEmail), ValidationErrors.INVALID_BODY.code);
  t.is(badEmail.body.errors[0].source.pointer, "/email");
  const operator = await request(http).post("/api/auth/signin/email").send({ email: { $ne: null }, password: PASSWORD }).expect(400);
  t.is(code(operator), ValidationErrors.OPERATOR_IN_BODY.code);
  t.is(code(await request(http).post("/api/auth/signin/email").send([1]).expect(400)), ValidationErrors.INVALID_BODY.code);
  t.is(code(await request(http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: "short" }).expect(400)), AuthErrors.WEAK_PASSWORD.code);
  // The same answer as the JWT provider's: pointer, detail and the bounds in meta, whatever the length.
  for (const password of ["short", "", "x".repeat(257), "x".repeat(1025)]) {
    const weak = await request(http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password }).expect(400);
    t.is(code(weak), AuthErrors.WEAK_PASSWORD.code);
    t.is(weak.body.errors[0].source.pointer, "/password");
    t.is(weak.body.errors[0].detail, "password must be 8 to 256 characters");
    t.deepEqual(weak.body.errors[0].meta, { minLength: 8, maxLength: 256 });
  }
  // 200 emoji are 200 characters (400 UTF-16 units): within the policy.
  await request(http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: "🔑".repeat(200) }).expect(201);
});

test("session sign-up refuses framework-managed fields like the JWT sign-up (VALIDATION_READ_ONLY_FIELD), creating nothing", async (t) => {
  const { http } = await sessionApp(t);
  for (const field of ["admin", "disabled", "deleted", "_id", "federatedId", "githubId"]) {
    const email = uniqueEmail();
    const response = await request(http).post("/api/auth/signup/email").send({ email, password: PASSWORD, [field]: true }).expect(400);
    t.is(code(response), ValidationErrors.READ_ONLY_FIELD.code, field);
    t.is(response.body.errors[0].source.pointer, `/${field}`);
    t.is(await TestUser.countDocuments({ email }), 0);
  }
  // better-auth's own fields still pass.
  await request(http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: PASSWORD, name: "Ada" }).expect(201);
});

test("a stale Bearer token does not stop a sign-in, however express routes the path", async (t) => {
  const { http } = await sessionApp(t);
  const { email } = await signUp(http);
  const stale = { Authorization: "Bearer stale.or.garbage" };
  for (const path of ["/api/auth/signin/email", "/API/Auth/signin/email", "/api/auth/signin/email/"]) {
    await request(http).post(path).set(stale).send({ email, password: PASSWORD }).expect(200);
  }
  t.is(code(await request(http).get("/whoami").set(stale).expect(401)), AuthErrors.SESSION_INVALID.code);
});

test("a disabled user loses the session at once and cannot sign in", async (t) => {
  const { http } = await sessionApp(t);
  const { email, userId, cookie, token } = await signUp(http);
  await TestUser.updateOne({ _id: userId }, { $set: { disabled: true } });
  t.is(code(await request(http).get("/whoami").set("Cookie", cookie).expect(401)), AuthErrors.USER_DISABLED.code);
  t.is(code(await request(http).get("/whoami").set("Authorization", `Bearer ${token}`).expect(401)), AuthErrors.USER_DISABLED.code);
  t.is(code(await request(http).post("/api/auth/signin/email").send({ email, password: PASSWORD }).expect(401)), AuthErrors.USER_DISABLED.code);
});

test("sign-up cannot claim an email a host user already has", async (t) => {
  const { http } = await sessionApp(t);
  const email = uniqueEmail("seeded");
  await TestUser.create({ email, admin: true });
  const response = await request(http).post("/api/auth/signup/email").send({ email, password: PASSWORD }).expect(409);
  t.is(code(response), AuthErrors.ACCOUNT_EXISTS.code);
});

test("AUTHENTICATOR accepts session tokens", async (t) => {
  const { app, http } = await sessionApp(t);
  const { token, userId } = await signUp(http);
  const authenticator = app.kernel.container.resolve(AUTHENTICATOR);
  t.is((await authenticator.authenticateToken(token)).id, userId);
  const error = (await t.throwsAsync(authenticator.authenticateToken(`${token}x`))) as { status?: number; code?: string };
  t.is(error.status, 401);
  t.is(error.code, AuthErrors.SESSION_INVALID.code);
});

test("social sign-in through GitHub: redirect → callback → session", async (t) => {
  const { http } = await sessionApp(t);
  const start = await request(http).get("/api/auth/signin/github").query({ callbackURL: `${APP}/home` }).expect(302);
  const authorize = new URL(start.headers.location!);
  t.is(authorize.origin + authorize.pathname, "https://github.com/login/oauth/authorize");
  const state = authorize.searchParams.get("state")!;
  const stateCookie = cookieHeader(start);

  const githubId = 900_000 + process.pid;
  const email = uniqueEmail("social");
  nock("https://github.com").post("/login/oauth/access_token").reply(200, { access_token: "gho_session", token_type: "bearer", scope: "user:email" });
  nock("https://api.github.com").get("/user").reply(200, { id: githubId, login: "octo-session", name: "Octo", email, avatar_url: "https://avatars.example/1" });
  nock("https://api.github.com").get("/user/emails").reply(200, [{ email, primary: true, verified: true }]);

  const back = await request(http).get("/api/auth/callback/github").query({ code: "gh-code", state }).set("Cookie", stateCookie).expect(302);
  t.is(new URL(back.headers.location!).origin, APP);
  const cookie = cookieHeader(back);
  const me = await request(http).get("/whoami").set("Cookie", cookie).expect(200);
  t.is(me.body.data.email, email);

  // A forged state is refused (no session).
  const forged = await request(http).get("/api/auth/callback/github").query({ code: "gh-code", state: "forged" }).set("Cookie", stateCookie);
  t.true(forged.status >= 300);
  t.false(cookiesOf(forged).some((line) => line.includes("session_token=") && !line.includes("session_token=;")));
});

test("an untrusted callbackURL is refused (no open redirect)", async (t) => {
  const { http } = await sessionApp(t);
  const response = await request(http).get("/api/auth/signin/github").query({ callbackURL: "https://evil.example/" });
  t.is(response.status, 400);
  t.is(code(response), AuthErrors.RETURN_TO_NOT_ALLOWED.code);
  t.is(code(await request(http).get("/api/auth/signin/myspace").expect(404)), AuthErrors.PROVIDER_NOT_CONFIGURED.code);
});

test("sessionAuth settings select session auth without enabled: true, unless AUTH_PROVIDER or enabled: false says otherwise", async (t) => {
  const { AUTH_PROVIDER: _, ...variables } = SESSION_ENV;
  const chosen = await authTestApp(t, { sessionAuth: { trustedOrigins: [APP] } }, variables);
  await request(chosen.http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
  await request(chosen.http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(404);

  for (const [sessionAuth, env] of [
    [{ trustedOrigins: [APP] }, { ...variables, AUTH_PROVIDER: "jwt" }],
    [{ enabled: false, trustedOrigins: [APP] }, variables],
  ] as const) {
    const { http } = await authTestApp(t, { sessionAuth }, env);
    await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
    await request(http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: PASSWORD }).expect(404);
  }
  // enabled: true wins over the variable.
  const forced = await authTestApp(t, { sessionAuth: { enabled: true, trustedOrigins: [APP] } }, { ...variables, AUTH_PROVIDER: "jwt" });
  await request(forced.http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
  t.pass();
});

test("the start fails naming a session OAuth option that is unset or empty", async (t) => {
  for (const [githubOAuth, option] of [
    [{ clientId: undefined, clientSecret: "s" }, "sessionAuth.githubOAuth.clientId"],
    [{ clientId: "id", clientSecret: "" }, "sessionAuth.githubOAuth.clientSecret"],
  ] as const) {
    const sessionAuth = { trustedOrigins: [APP], githubOAuth: githubOAuth as unknown as { clientId: string; clientSecret: string } };
    const error = (await t.throwsAsync(authTestApp(t, { sessionAuth }, SESSION_ENV))) as Error & { code?: string };
    t.is(error.code, AuthErrors.OAUTH_OPTION_INVALID.code, option);
    t.true(error.message.includes(option), error.message);
  }
});

test("session-auth start fails without its variables, naming them", async (t) => {
  const error = (await t.throwsAsync(authTestApp(t, {}, { AUTH_PROVIDER: "session-auth" }))) as Error & { code?: string };
  t.is(error.code, ConfigErrors.INVALID_ENVIRONMENT.code);
  t.true(error.message.includes("SESSION_AUTH_SECRET"));
  t.true(error.message.includes("SESSION_AUTH_URL"));
});
