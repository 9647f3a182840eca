import test from "ava";
import request from "supertest";
import { errorCode as code, sharedAuthTestApp, signUpThroughApi, TEST_USER_PASSWORD } from "../../../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { AuthErrors } from "../errors.js";

// Signing out under the JWT provider: POST /auth/logout ends one sign-in (a device), POST
// /auth/logout_all every sign-in of the caller. Through the real routes, on one app per file.

const PASSWORD = TEST_USER_PASSWORD;
type Http = Parameters<typeof request>[0];

const shared = sharedAuthTestApp(test);
const signUp = (http: Http) => signUpThroughApi(http, "signout");

async function logIn(http: Http, email: string) {
  return (await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(200)).body.data as { token: string; refreshToken: string };
}

const me = (http: Http, token: string) => request(http).get("/auth/me").set("authorization", `Bearer ${token}`);
const refresh = (http: Http, refreshToken: string) => request(http).post("/auth/refresh_token").send({ refreshToken });

test("logout ends that sign-in only: its refresh token (and its successors) are refused, the other device's work", async (t) => {
  const { http, document } = await shared;
  const phone = await signUp(http);
  const laptop = await logIn(http, phone.email);
  const rotated = (await refresh(http, phone.refreshToken).expect(200)).body.data as { token: string; refreshToken: string };

  // The used, pre-rotation token names the same sign-in: signing out with it ends the successor too.
  const answer = await request(http).post("/auth/logout").send({ refreshToken: phone.refreshToken }).expect(204);
  t.is(answer.text, "");
  t.is(documentedAnswerProblem(document, "post", "/auth/logout", answer), undefined);
  t.is(code(await refresh(http, rotated.refreshToken).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);

  await me(http, laptop.token).expect(200);
  const next = (await refresh(http, laptop.refreshToken).expect(200)).body.data as { token: string };
  await me(http, next.token).expect(200);
});

test("logout is safe to repeat and needs no access token: a stale or missing one, an already-ended, forged or foreign token all answer 204", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  const other = await signUp(http);
  for (let time = 0; time < 2; time++) {
    await request(http).post("/auth/logout").set("authorization", "Bearer stale.or.garbage").send({ refreshToken: user.refreshToken }).expect(204);
  }
  // An access token is not a refresh token; nor is a string of letters: nothing is ended.
  for (const refreshToken of [other.token, "not-a-token", `${other.refreshToken.slice(0, -4)}AAAA`]) {
    await request(http).post("/auth/logout").send({ refreshToken }).expect(204);
  }
  await refresh(http, other.refreshToken).expect(200);
  t.is(code(await refresh(http, user.refreshToken).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("logout refuses malformed bodies with the validation error: no token, a non-string, operators, not an object", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  for (const body of [{}, { refreshToken: 42 }, { refreshToken: { $ne: null } }, [user.refreshToken]]) {
    const refused = await request(http).post("/auth/logout").send(body).expect(400);
    t.regex(code(refused) ?? "", /^VALIDATION_/, JSON.stringify(body));
  }
  await refresh(http, user.refreshToken).expect(200);
});

test("logout_all ends every sign-in of the caller at once, access tokens included; other users keep theirs", async (t) => {
  const { http, document } = await shared;
  const phone = await signUp(http);
  const laptop = await logIn(http, phone.email);
  const bystander = await signUp(http);

  const answer = await request(http).post("/auth/logout_all").set("authorization", `Bearer ${laptop.token}`).expect(204);
  t.is(documentedAnswerProblem(document, "post", "/auth/logout_all", answer), undefined);
  for (const token of [phone.token, laptop.token]) t.is(code(await me(http, token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  for (const refreshToken of [phone.refreshToken, laptop.refreshToken]) t.is(code(await refresh(http, refreshToken).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
  await me(http, bystander.token).expect(200);

  // Signing in again works, and that sign-in is good.
  const again = await logIn(http, phone.email);
  await me(http, again.token).expect(200);
});

test("logout_all needs a signed-in caller", async (t) => {
  const { http, document } = await shared;
  const anonymous = await request(http).post("/auth/logout_all").expect(401);
  t.is(documentedAnswerProblem(document, "post", "/auth/logout_all", anonymous), undefined);
  t.is(code(await request(http).post("/auth/logout_all").set("authorization", "Bearer forged").expect(401)), AuthErrors.TOKEN_INVALID.code);
});
