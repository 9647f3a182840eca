import test from "ava";
import request from "supertest";
import { type EmailVerificationMail, type PasswordResetMail } from "../../../index.js";
import { createTestApp } from "../../../hosts/testing.js";
import { arrival, verifyingUserModel, errorCode as code, JWT_ENV, sharedAuthTestApp, TestUser, TEST_USER_PASSWORD, uniqueEmail } from "../../../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { authPlugin } from "../auth-plugin.js";
import { AuthErrors } from "../errors.js";

// Email verification under the JWT provider, through the real routes: sign-up mails a link (into
// a list here), following it stamps emailVerifiedAt; resend, refusals, and a password reset
// counting as proof too.

const VerifiedUser = verifyingUserModel("VerifiedUser");

const verifications: EmailVerificationMail[] = [];
const resets: PasswordResetMail[] = [];
const clock = { offsetMs: 0 };
type Http = Parameters<typeof request>[0];

const shared = sharedAuthTestApp(test, {
  userModel: VerifiedUser,
  profileFields: ["name"],
  emailVerification: { expiresIn: "24h", send: (mail) => void verifications.push(mail) },
  passwordReset: { send: (mail) => void resets.push(mail) },
  now: () => new Date(Date.now() + clock.offsetMs),
});

async function signUp(http: Http) {
  const email = uniqueEmail("verify");
  const response = await request(http).post("/auth/signup").send({ email, password: TEST_USER_PASSWORD }).expect(201);
  return { email, ...(response.body.data as { token: string; refreshToken: string; userId: string }) };
}

/** The newest mail of `list` to `email`, among those sent after the first `after` (mails go out after the answer). */
const newest = <T extends { email: string }>(list: T[], email: string, after = 0): Promise<T> =>
  arrival(() => list.slice(after).findLast((mail) => mail.email === email), `a mail to ${email}`);

const me = (http: Http, token: string) => request(http).get("/auth/me").set("authorization", `Bearer ${token}`);
const verify = (http: Http, body: unknown) => request(http).post("/auth/verify_email").send(body as object);

test.serial("sign-up mails a link; following it stamps emailVerifiedAt, once; the link works once", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const mail = await newest(verifications, user.email);
  t.is(mail.user.id, user.userId);
  t.regex(mail.token, /^[A-Za-z0-9_-]{43}$/);
  t.is((await me(http, user.token).expect(200)).body.data.emailVerifiedAt, undefined);

  const done = await verify(http, { token: mail.token }).expect(204);
  t.is(documentedAnswerProblem(document, "post", "/auth/verify_email", done), undefined);
  const stamped = (await me(http, user.token).expect(200)).body.data.emailVerifiedAt as string;
  t.true(Math.abs(Date.parse(stamped) - Date.now()) < 60_000, stamped);
  const again = await verify(http, { token: mail.token }).expect(400);
  t.is(code(again), AuthErrors.VERIFY_TOKEN_INVALID.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/verify_email", again), undefined);

  // Verified already: resend says so.
  const already = await request(http).post("/auth/verify_email/resend").set("authorization", `Bearer ${user.token}`).expect(409);
  t.is(code(already), AuthErrors.EMAIL_ALREADY_VERIFIED.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/verify_email/resend", already), undefined);
});

test.serial("resend replaces the link; links expire; a disabled account's link is refused; resend is limited and needs a signed-in caller", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const first = await newest(verifications, user.email);
  const before = verifications.length;
  const resent = await request(http).post("/auth/verify_email/resend").set("authorization", `Bearer ${user.token}`).expect(202);
  t.deepEqual(resent.body, { data: { accepted: true } });
  t.is(documentedAnswerProblem(document, "post", "/auth/verify_email/resend", resent), undefined);
  const second = await newest(verifications, user.email, before);
  t.not(first.token, second.token);
  t.is(code(await verify(http, { token: first.token }).expect(400)), AuthErrors.VERIFY_TOKEN_INVALID.code);

  clock.offsetMs = 25 * 3600_000;
  try {
    t.is(code(await verify(http, { token: second.token }).expect(400)), AuthErrors.VERIFY_TOKEN_INVALID.code);
  } finally {
    clock.offsetMs = 0;
  }

  const other = await signUp(http);
  const mail = await newest(verifications, other.email);
  await VerifiedUser.updateOne({ _id: other.userId }, { disabled: true });
  t.is(code(await verify(http, { token: mail.token }).expect(400)), AuthErrors.VERIFY_TOKEN_INVALID.code);

  await request(http).post("/auth/verify_email/resend").expect(401);
  // The default budget is 5 per hour and account: one used above.
  for (let time = 1; time < 5; time++) await request(http).post("/auth/verify_email/resend").set("authorization", `Bearer ${user.token}`).expect(202);
  t.is(code(await request(http).post("/auth/verify_email/resend").set("authorization", `Bearer ${user.token}`).expect(429)), AuthErrors.RATE_LIMITED.code);
});

test.serial("a password reset proves the address too: it stamps emailVerifiedAt", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  await request(http).post("/auth/password_reset").send({ email: user.email }).expect(202);
  const mail = await newest(resets, user.email);
  await request(http).post("/auth/password_reset/confirm").send({ token: mail.token, newPassword: "a brand new horse battery" }).expect(204);
  const login = (await request(http).post("/auth/login").send({ email: user.email, password: "a brand new horse battery" }).expect(200)).body.data as { token: string };
  t.truthy((await me(http, login.token).expect(200)).body.data.emailVerifiedAt);
});

test("hostile bodies are the validation error; made-up tokens are refused; clients cannot set emailVerifiedAt", async (t) => {
  const { http } = await shared;
  for (const body of [{}, { token: { $ne: null } }, { token: 42 }, { token: "x", userId: "someone" }, ["x"]]) {
    t.regex(code(await verify(http, body).expect(400)) ?? "", /^VALIDATION_/, JSON.stringify(body));
  }
  for (const token of ["", "A".repeat(43), "not-a-token"]) t.is(code(await verify(http, { token }).expect(400)), AuthErrors.VERIFY_TOKEN_INVALID.code, token);
  const user = await signUp(http);
  await request(http).patch("/auth/me").set("authorization", `Bearer ${user.token}`).send({ emailVerifiedAt: new Date().toISOString() }).expect(400);
  await request(http).post("/auth/signup").send({ email: uniqueEmail("forged"), password: TEST_USER_PASSWORD, emailVerifiedAt: new Date().toISOString() }).expect(400);
  t.is((await me(http, user.token).expect(200)).body.data.emailVerifiedAt, undefined);
});

test("the option needs emailVerificationPlugin on the user model, a send function and a duration", async (t) => {
  for (const [options, says] of [
    [{ userModel: TestUser, emailVerification: { send: () => undefined } }, /emailVerificationPlugin/],
    [{ userModel: VerifiedUser, emailVerification: { send: "mail it" } }, /send must be a function/],
    [{ userModel: VerifiedUser, emailVerification: { send: () => undefined, expiresIn: "later" } }, /expiresIn must be a duration/],
  ] as const) {
    const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin(options as never));
    t.teardown(() => app.stop());
    const error = (await t.throwsAsync(app.build())) as { message: string };
    t.regex(error.message, says);
  }
});
