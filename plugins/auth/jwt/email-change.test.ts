import test from "ava";
import request from "supertest";
import { type EmailChanged, type EmailChangeMail, type PasswordResetMail } from "../../../index.js";
import { createTestApp } from "../../../hosts/testing.js";
import { arrival, verifyingUserModel, errorCode as code, JWT_ENV, sharedAuthTestApp, TEST_USER_PASSWORD, uniqueEmail } from "../../../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { authPlugin } from "../auth-plugin.js";
import { AuthErrors } from "../errors.js";

// Changing the sign-in email under the JWT provider, through the real routes: the current
// password, then a link mailed to the new address (into a list here); following it makes the new
// address the account's, verified, and tells the app so it can warn the old one.

const MovingUser = verifyingUserModel("MovingUser");

const changeMails: EmailChangeMail[] = [];
const resets: PasswordResetMail[] = [];
const changed: EmailChanged[] = [];
const clock = { offsetMs: 0 };
type Http = Parameters<typeof request>[0];

const shared = sharedAuthTestApp(test, {
  userModel: MovingUser,
  // A small login budget, so the guessing case stays short.
  rateLimits: { perAccount: { points: 4, durationSeconds: 60 } },
  emailChange: { send: (mail) => void changeMails.push(mail), onChanged: (change) => void changed.push(change) },
  passwordReset: { send: (mail) => void resets.push(mail) },
  now: () => new Date(Date.now() + clock.offsetMs),
});

async function signUp(http: Http) {
  const email = uniqueEmail("moving");
  const response = await request(http).post("/auth/signup").send({ email, password: TEST_USER_PASSWORD }).expect(201);
  return { email, ...(response.body.data as { token: string; refreshToken: string; userId: string }) };
}

/** The newest item of `list` matching (mails go out after the answer: waits for it). */
const newest = <T>(list: T[], match: (item: T) => boolean): Promise<T> => arrival(() => list.findLast(match), "a mail or an onChanged call");

const ask = (http: Http, token: string | undefined, body: unknown) => {
  const call = request(http).post("/auth/change_email");
  if (token !== undefined) call.set("authorization", `Bearer ${token}`);
  return call.send(body as object);
};
const confirm = (http: Http, body: unknown) => request(http).post("/auth/change_email/confirm").send(body as object);
const me = (http: Http, token: string) => request(http).get("/auth/me").set("authorization", `Bearer ${token}`);
const login = (http: Http, email: string) => request(http).post("/auth/login").send({ email, password: TEST_USER_PASSWORD });

test.serial("the new address gets a link; nothing changes until it is followed; then it signs in, verified, the old one does not, and the app hears of it", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const newEmail = uniqueEmail("moved");
  const accepted = await ask(http, user.token, { newEmail: `  ${newEmail.toUpperCase()} `, currentPassword: TEST_USER_PASSWORD }).expect(202);
  t.deepEqual(accepted.body, { data: { accepted: true } });
  t.is(documentedAnswerProblem(document, "post", "/auth/change_email", accepted), undefined);
  const mail = await newest(changeMails, (item) => item.email === newEmail);
  t.is(mail.user.id, user.userId);
  t.is(mail.user.email, user.email);
  t.regex(mail.token, /^[A-Za-z0-9_-]{43}$/);

  // Until the link is followed, the old address is the account's.
  t.is((await me(http, user.token).expect(200)).body.data.email, user.email);
  await login(http, user.email).expect(200);

  const done = await confirm(http, { token: mail.token }).expect(204);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_email/confirm", done), undefined);
  const after = (await me(http, user.token).expect(200)).body.data as { email: string; emailVerifiedAt?: string };
  t.is(after.email, newEmail);
  t.truthy(after.emailVerifiedAt);
  await login(http, newEmail).expect(200);
  t.is(code(await login(http, user.email).expect(401)), AuthErrors.INVALID_CREDENTIALS.code);
  const told = await newest(changed, (item) => item.email === newEmail);
  t.deepEqual([told.previousEmail, told.user.id, told.user.email], [user.email, user.userId, newEmail]);

  // The link works once.
  const again = await confirm(http, { token: mail.token }).expect(400);
  t.is(code(again), AuthErrors.EMAIL_CHANGE_TOKEN_INVALID.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_email/confirm", again), undefined);
});

test.serial("a wrong current password is 403 and mails nothing; guesses spend the account's login budget (429)", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const before = changeMails.length;
  const wrong = await ask(http, user.token, { newEmail: uniqueEmail("nope"), currentPassword: "not the password" }).expect(403);
  t.is(code(wrong), AuthErrors.CURRENT_PASSWORD_INVALID.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_email", wrong), undefined);
  for (let guess = 0; guess < 3; guess++) await ask(http, user.token, { newEmail: uniqueEmail("nope"), currentPassword: `guess ${guess}` }).expect(403);
  const limited = await ask(http, user.token, { newEmail: uniqueEmail("nope"), currentPassword: TEST_USER_PASSWORD }).expect(429);
  t.is(code(limited), AuthErrors.RATE_LIMITED.code);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(changeMails.length, before);
});

test.serial("another account's address is 409, the account's own is 400, and an address taken before the link is followed is 409 then", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const other = await signUp(http);
  const taken = await ask(http, user.token, { newEmail: other.email, currentPassword: TEST_USER_PASSWORD }).expect(409);
  t.is(code(taken), AuthErrors.EMAIL_TAKEN.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_email", taken), undefined);
  const own = await ask(http, user.token, { newEmail: user.email, currentPassword: TEST_USER_PASSWORD }).expect(400);
  t.regex(code(own) ?? "", /^VALIDATION_/);

  const wanted = uniqueEmail("wanted");
  await ask(http, user.token, { newEmail: wanted, currentPassword: TEST_USER_PASSWORD }).expect(202);
  const mail = await newest(changeMails, (item) => item.email === wanted);
  // Someone signs up with that address before the link is followed.
  await request(http).post("/auth/signup").send({ email: wanted, password: TEST_USER_PASSWORD }).expect(201);
  const late = await confirm(http, { token: mail.token }).expect(409);
  t.is(code(late), AuthErrors.EMAIL_TAKEN.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_email/confirm", late), undefined);
  t.is((await me(http, user.token).expect(200)).body.data.email, user.email);
});

test.serial("only the newest link works, links expire, and a disabled account's link is refused", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  const first = uniqueEmail("first");
  const second = uniqueEmail("second");
  await ask(http, user.token, { newEmail: first, currentPassword: TEST_USER_PASSWORD }).expect(202);
  const firstMail = await newest(changeMails, (item) => item.email === first);
  await ask(http, user.token, { newEmail: second, currentPassword: TEST_USER_PASSWORD }).expect(202);
  const secondMail = await newest(changeMails, (item) => item.email === second);
  t.is(code(await confirm(http, { token: firstMail.token }).expect(400)), AuthErrors.EMAIL_CHANGE_TOKEN_INVALID.code);

  // An hour later (the default lifetime) the newest one has expired too.
  clock.offsetMs = 61 * 60 * 1000;
  try {
    t.is(code(await confirm(http, { token: secondMail.token }).expect(400)), AuthErrors.EMAIL_CHANGE_TOKEN_INVALID.code);
  } finally {
    clock.offsetMs = 0;
  }

  const third = uniqueEmail("third");
  await ask(http, user.token, { newEmail: third, currentPassword: TEST_USER_PASSWORD }).expect(202);
  const thirdMail = await newest(changeMails, (item) => item.email === third);
  await MovingUser.updateOne({ _id: user.userId }, { $set: { disabled: true } });
  t.is(code(await confirm(http, { token: thirdMail.token }).expect(400)), AuthErrors.EMAIL_CHANGE_TOKEN_INVALID.code);
  t.is((await MovingUser.findById(user.userId).lean<{ email: string }>())?.email, user.email);
});

test.serial("a reset link mailed to the old address stops working once the address changed", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  await request(http).post("/auth/password_reset").send({ email: user.email }).expect(202);
  const reset = await newest(resets, (item) => item.email === user.email);
  const moved = uniqueEmail("moved");
  await ask(http, user.token, { newEmail: moved, currentPassword: TEST_USER_PASSWORD }).expect(202);
  await confirm(http, { token: (await newest(changeMails, (item) => item.email === moved)).token }).expect(204);
  const refused = await request(http).post("/auth/password_reset/confirm").send({ token: reset.token, newPassword: "a takeover password" }).expect(400);
  t.is(code(refused), AuthErrors.RESET_TOKEN_INVALID.code);
  await login(http, moved).expect(200);
});

test.serial("hostile and malformed bodies are refused with the validation error and change nothing; both routes' auth", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  for (const body of [
    {},
    { newEmail: "not an email", currentPassword: TEST_USER_PASSWORD },
    { newEmail: { $ne: null }, currentPassword: TEST_USER_PASSWORD },
    { newEmail: uniqueEmail("x"), currentPassword: { $gt: "" } },
    { newEmail: uniqueEmail("x"), currentPassword: TEST_USER_PASSWORD, admin: true },
    [uniqueEmail("x")],
  ]) {
    const refused = await ask(http, user.token, body).expect(400);
    t.regex(code(refused) ?? "", /^VALIDATION_/, JSON.stringify(body));
  }
  for (const body of [{}, { token: { $ne: null } }, { token: 42 }, { token: "x".repeat(300) }]) {
    t.regex(code(await confirm(http, body).expect(400)) ?? "", /^VALIDATION_/, JSON.stringify(body));
  }
  t.is(code(await confirm(http, { token: "A".repeat(43) }).expect(400)), AuthErrors.EMAIL_CHANGE_TOKEN_INVALID.code);
  await ask(http, undefined, { newEmail: uniqueEmail("anon"), currentPassword: TEST_USER_PASSWORD }).expect(401);
  t.is((await me(http, user.token).expect(200)).body.data.email, user.email);
});

test("without the option there are no email-change routes; under session auth the option fails the start", async (t) => {
  const plain = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: MovingUser }));
  const http = await plain.build();
  t.teardown(() => plain.stop());
  await request(http).post("/auth/change_email/confirm").send({ token: "A".repeat(43) }).expect(404);

  const session = (await createTestApp({ env: { AUTH_PROVIDER: "session-auth", SESSION_AUTH_SECRET: "session-auth-secret-0123456789abcdef0123456789", SESSION_AUTH_URL: "http://localhost:3000" } })).register(
    authPlugin({ userModel: MovingUser, emailChange: { send: () => undefined } }),
  );
  const error = (await t.throwsAsync(session.build())) as Error & { code?: string };
  t.is(error.code, AuthErrors.MAIL_LINK_OPTION_INVALID.code);
  await session.stop().catch(() => undefined);
});
