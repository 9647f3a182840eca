import test from "ava";
import request from "supertest";
import { ACCOUNTS, type PasswordResetMail } from "../../../index.js";
import { createTestApp } from "../../../hosts/testing.js";
import { arrival, authTestApp, errorCode as code, JWT_ENV, sharedAuthTestApp, signUpThroughApi, TEST_USER_PASSWORD, TestUser, uniqueEmail } from "../../../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { authPlugin } from "../auth-plugin.js";
import { AuthErrors } from "../errors.js";

// "Forgot your password?" under the JWT provider, through the real routes: the app's `send` gets
// each mail (here: into a list), the test follows the link as a user would. One app per file,
// with a clock the tests move to expire links.

const PASSWORD = TEST_USER_PASSWORD;
const NEW_PASSWORD = "a brand new horse battery";
type Http = Parameters<typeof request>[0];

const mails: PasswordResetMail[] = [];
const clock = { offsetMs: 0 };
let failNextSend = false;

const shared = sharedAuthTestApp(test, {
  passwordReset: {
    expiresIn: "30m",
    send: async (mail) => {
      if (failNextSend) {
        failNextSend = false;
        throw new Error("the mail provider is down");
      }
      mails.push(mail);
    },
  },
  rateLimits: { resetPerAccount: { points: 3, durationSeconds: 3600 } },
  now: () => new Date(Date.now() + clock.offsetMs),
});
const signUp = (http: Http) => signUpThroughApi(http, "reset");

const ask = (http: Http, email: unknown) => request(http).post("/auth/password_reset").send({ email });
const confirm = (http: Http, body: unknown) => request(http).post("/auth/password_reset/confirm").send(body as object);
const login = (http: Http, email: string, password: string) => request(http).post("/auth/login").send({ email, password });

/** The mail sent to `email` (the send runs after the answer: waits for it). */
const mailTo = (email: string): Promise<PasswordResetMail> => arrival(() => mails.findLast((each) => each.email === email), `a reset mail to ${email}`);

test.serial("asking mails a link; following it sets the password, ends every sign-in, and the link works once", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const asked = await ask(http, `  ${user.email.toUpperCase()} `).expect(202);
  t.deepEqual(asked.body, { data: { accepted: true } });
  t.is(documentedAnswerProblem(document, "post", "/auth/password_reset", asked), undefined);
  const mail = await mailTo(user.email);
  t.is(mail.user.id, user.userId);
  t.regex(mail.token, /^[A-Za-z0-9_-]{43}$/);
  const minutes = (mail.expiresAt.getTime() - Date.now()) / 60_000;
  t.true(minutes > 29 && minutes <= 30, String(minutes));

  const done = await confirm(http, { token: mail.token, newPassword: NEW_PASSWORD }).expect(204);
  t.is(documentedAnswerProblem(document, "post", "/auth/password_reset/confirm", done), undefined);
  t.is(code(await request(http).get("/auth/me").set("authorization", `Bearer ${user.token}`).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  await request(http).post("/auth/refresh_token").send({ refreshToken: user.refreshToken }).expect(401);
  await login(http, user.email, PASSWORD).expect(401);
  await login(http, user.email, NEW_PASSWORD).expect(200);

  const again = await confirm(http, { token: mail.token, newPassword: "yet another horse battery" }).expect(400);
  t.is(code(again), AuthErrors.RESET_TOKEN_INVALID.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/password_reset/confirm", again), undefined);
});

test.serial("an unknown, disabled or deleted account gets the same answer and no mail", async (t) => {
  const { http } = await shared;
  const disabled = await signUp(http);
  await TestUser.updateOne({ _id: disabled.userId }, { disabled: true });
  const deleted = await signUp(http);
  await TestUser.updateOne({ _id: deleted.userId }, { deleted: true });
  const before = mails.length;
  const answers = [];
  for (const email of [uniqueEmail("nobody"), disabled.email, deleted.email]) answers.push((await ask(http, email).expect(202)).body);
  t.deepEqual(answers, [{ data: { accepted: true } }, { data: { accepted: true } }, { data: { accepted: true } }]);
  // A known account's mail arrives in the same way, so waiting for it shows the others were skipped, not late.
  const known = await signUp(http);
  await ask(http, known.email).expect(202);
  await mailTo(known.email);
  t.deepEqual(
    mails.slice(before).map((mail) => mail.email),
    [known.email],
  );
});

test.serial("a newer link replaces the older; a link expires; a password set another way ends the links; a disabled account's link is refused", async (t) => {
  const { app, http } = await shared;
  const user = await signUp(http);
  await ask(http, user.email).expect(202);
  const first = await mailTo(user.email);
  mails.length = 0;
  await ask(http, user.email).expect(202);
  const second = await mailTo(user.email);
  t.not(first.token, second.token);
  t.is(code(await confirm(http, { token: first.token, newPassword: NEW_PASSWORD }).expect(400)), AuthErrors.RESET_TOKEN_INVALID.code);

  clock.offsetMs = 31 * 60_000;
  try {
    t.is(code(await confirm(http, { token: second.token, newPassword: NEW_PASSWORD }).expect(400)), AuthErrors.RESET_TOKEN_INVALID.code);
  } finally {
    clock.offsetMs = 0;
  }

  // Still valid before the expiry... until the password is set another way.
  await app.resolve(ACCOUNTS).setPassword(user.userId, "set by an administrator");
  t.is(code(await confirm(http, { token: second.token, newPassword: NEW_PASSWORD }).expect(400)), AuthErrors.RESET_TOKEN_INVALID.code);

  const other = await signUp(http);
  await ask(http, other.email).expect(202);
  const mail = await mailTo(other.email);
  await TestUser.updateOne({ _id: other.userId }, { disabled: true });
  t.is(code(await confirm(http, { token: mail.token, newPassword: NEW_PASSWORD }).expect(400)), AuthErrors.RESET_TOKEN_INVALID.code);
});

test.serial("a new password outside the policy is refused and leaves the link working", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  await ask(http, user.email).expect(202);
  const mail = await mailTo(user.email);
  t.is(code(await confirm(http, { token: mail.token, newPassword: "short" }).expect(400)), AuthErrors.WEAK_PASSWORD.code);
  await confirm(http, { token: mail.token, newPassword: NEW_PASSWORD }).expect(204);
  await login(http, user.email, NEW_PASSWORD).expect(200);
});

test.serial("a reset unlocks an account locked by failed logins; asking is rate-limited per account (429) without telling whether it exists", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  for (let guess = 0; guess < 10; guess++) await login(http, user.email, "wrong guess!").expect(401);
  t.is(code(await login(http, user.email, PASSWORD).expect(429)), AuthErrors.RATE_LIMITED.code);
  await ask(http, user.email).expect(202);
  const mail = await mailTo(user.email);
  await confirm(http, { token: mail.token, newPassword: NEW_PASSWORD }).expect(204);
  await login(http, user.email, NEW_PASSWORD).expect(200);

  // The limit (3 here) counts requests for any email alike, known (asked once above) or not.
  for (const [email, asked] of [[user.email, 1], [uniqueEmail("ghost"), 0]] as const) {
    for (let time = asked; time < 3; time++) await ask(http, email).expect(202);
    const limited = await ask(http, email).expect(429);
    t.is(code(limited), AuthErrors.RATE_LIMITED.code);
    t.truthy(limited.headers["retry-after"]);
  }
});

test.serial("a failing send is logged and never answered: the asker still gets 202", async (t) => {
  const { http, logs } = await shared;
  const user = await signUp(http);
  failNextSend = true;
  await ask(http, user.email).expect(202);
  const logged = () => logs.lines.some((line) => line.level === "error" && line.message.includes("Password-reset mail failed") && line.message.includes("the mail provider is down"));
  for (let tries = 0; tries < 200 && !logged(); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  t.true(logged());
});

test("hostile and malformed bodies are the validation error: operators, extra fields, wrong types; a made-up token is refused", async (t) => {
  const { http } = await shared;
  const askBodies: unknown[] = [{}, { email: { $ne: null } }, { email: "not an email" }, { email: "a@example.com", admin: true }, ["a@example.com"]];
  for (const body of askBodies) t.regex(code(await request(http).post("/auth/password_reset").send(body as object).expect(400)) ?? "", /^VALIDATION_/, JSON.stringify(body));
  const confirmBodies: unknown[] = [{}, { token: "x" }, { token: { $gt: "" }, newPassword: NEW_PASSWORD }, { token: "x", newPassword: NEW_PASSWORD, userId: "someone" }, { token: 42, newPassword: NEW_PASSWORD }];
  for (const body of confirmBodies) t.regex(code(await confirm(http, body).expect(400)) ?? "", /^VALIDATION_/, JSON.stringify(body));
  for (const token of ["", "A".repeat(43), "not-a-token", "A".repeat(256)]) {
    t.is(code(await confirm(http, { token, newPassword: NEW_PASSWORD }).expect(400)), AuthErrors.RESET_TOKEN_INVALID.code, token);
  }
});

test("without the option there are no reset routes; a wrong option fails the start", async (t) => {
  const { http } = await authTestApp(t);
  await request(http).post("/auth/password_reset").send({ email: uniqueEmail() }).expect(404);
  const document = (await request(http).get("/openapi.json").expect(200)).body as { paths: Record<string, unknown> };
  t.false("/auth/password_reset" in document.paths);

  for (const [passwordReset, says] of [
    [{ send: "mail it" }, /send must be a function/],
    [{ send: () => undefined, expiresIn: "soon" }, /expiresIn must be a duration/],
  ] as const) {
    const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: TestUser, passwordReset: passwordReset as never }));
    t.teardown(() => app.stop());
    const error = (await t.throwsAsync(app.build())) as { code?: string; message: string };
    t.is(error.code, AuthErrors.MAIL_LINK_OPTION_INVALID.code);
    t.regex(error.message, says);
  }
});
