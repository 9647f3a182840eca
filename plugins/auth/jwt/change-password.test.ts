import test from "ava";
import request from "supertest";
import { errorCode as code, sharedAuthTestApp, signUpThroughApi, TEST_USER_PASSWORD } from "../../../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { AuthErrors } from "../errors.js";

// POST /auth/change_password under the JWT provider: the signed-in user changes their own
// password by giving the current one. Through the real routes, on one app per file.

const PASSWORD = TEST_USER_PASSWORD;
const NEW_PASSWORD = "a different horse entirely";
type Http = Parameters<typeof request>[0];

// A small account budget, so the rate-limit case stays short.
const shared = sharedAuthTestApp(test, { rateLimits: { perAccount: { points: 3, durationSeconds: 60 } }, passwordPolicy: { minLength: 10 } });
const signUp = (http: Http) => signUpThroughApi(http, "change");

const change = (http: Http, token: string | undefined, body: unknown) => {
  const call = request(http).post("/auth/change_password");
  if (token !== undefined) call.set("authorization", `Bearer ${token}`);
  return call.send(body as object);
};
const me = (http: Http, token: string) => request(http).get("/auth/me").set("authorization", `Bearer ${token}`);
const login = (http: Http, email: string, password: string) => request(http).post("/auth/login").send({ email, password });

test("the right current password changes it: this device gets a new sign-in, every other sign-in ends, the old password no longer works", async (t) => {
  const { http, document } = await shared;
  const phone = await signUp(http);
  const laptop = (await login(http, phone.email, PASSWORD).expect(200)).body.data as { token: string; refreshToken: string };

  const answer = await change(http, phone.token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }).expect(200);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_password", answer), undefined);
  const signedIn = answer.body.data as { token: string; refreshToken: string; userId: string };
  t.is(signedIn.userId, phone.userId);
  await me(http, signedIn.token).expect(200);
  await request(http).post("/auth/refresh_token").send({ refreshToken: signedIn.refreshToken }).expect(200);

  for (const token of [phone.token, laptop.token]) t.is(code(await me(http, token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  for (const refreshToken of [phone.refreshToken, laptop.refreshToken]) {
    t.is(code(await request(http).post("/auth/refresh_token").send({ refreshToken }).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
  }
  t.is(code(await login(http, phone.email, PASSWORD).expect(401)), AuthErrors.INVALID_CREDENTIALS.code);
  await login(http, phone.email, NEW_PASSWORD).expect(200);
});

test("a wrong current password is 403 and changes nothing; the caller stays signed in; guesses spend the login budget (429)", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const wrong = await change(http, user.token, { currentPassword: "not the password", newPassword: NEW_PASSWORD }).expect(403);
  t.is(code(wrong), AuthErrors.CURRENT_PASSWORD_INVALID.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_password", wrong), undefined);
  await me(http, user.token).expect(200);
  await login(http, user.email, PASSWORD).expect(200);

  // The budget (3 here) is the account's login budget: wrong guesses through either route add up.
  await change(http, user.token, { currentPassword: "still not it", newPassword: NEW_PASSWORD }).expect(403);
  await login(http, user.email, "nor this").expect(401);
  await change(http, user.token, { currentPassword: "nor this one", newPassword: NEW_PASSWORD }).expect(403);
  const limited = await change(http, user.token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }).expect(429);
  t.is(code(limited), AuthErrors.RATE_LIMITED.code);
  t.truthy(limited.headers["retry-after"]);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_password", limited), undefined);
  await me(http, user.token).expect(200);
});

test("the new password meets the policy (AUTH_WEAK_PASSWORD, nothing changed, the attempt not counted as a guess)", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  for (const newPassword of ["short", "", "x".repeat(300)]) {
    t.is(code(await change(http, user.token, { currentPassword: PASSWORD, newPassword }).expect(400)), AuthErrors.WEAK_PASSWORD.code);
  }
  await me(http, user.token).expect(200);
  await login(http, user.email, PASSWORD).expect(200);
});

test("hostile and malformed bodies are the validation error and change nothing: operators, extra fields, wrong types, not an object", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  const bodies: unknown[] = [
    {},
    { currentPassword: PASSWORD },
    { currentPassword: { $ne: null }, newPassword: NEW_PASSWORD },
    { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, admin: true },
    { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, userId: "someone-else" },
    { currentPassword: 12345678, newPassword: NEW_PASSWORD },
    [PASSWORD, NEW_PASSWORD],
  ];
  for (const body of bodies) t.regex(code(await change(http, user.token, body).expect(400)) ?? "", /^VALIDATION_/, JSON.stringify(body));
  await login(http, user.email, PASSWORD).expect(200);
});

test("it needs a signed-in caller, and changes only the caller's own password", async (t) => {
  const { http, document } = await shared;
  const alice = await signUp(http);
  const bob = await signUp(http);
  const anonymous = await change(http, undefined, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }).expect(401);
  t.is(documentedAnswerProblem(document, "post", "/auth/change_password", anonymous), undefined);
  t.is(code(await change(http, "forged.token.here", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }).expect(401)), AuthErrors.TOKEN_INVALID.code);

  // Bob's password is the same string as Alice's, but Bob's token changes Bob's.
  await change(http, bob.token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }).expect(200);
  await login(http, alice.email, PASSWORD).expect(200);
  await me(http, alice.token).expect(200);
  await login(http, bob.email, NEW_PASSWORD).expect(200);
});
