import test from "ava";
import request from "supertest";
import { errorCode as code, sharedAuthTestApp, signUpThroughApi, TestUser, TEST_USER_PASSWORD } from "../../../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { AuthErrors } from "../errors.js";
import { MAX_ENDED_SIGN_INS } from "../users/ended-sign-ins.js";

// The JWT provider's sign-in list: GET /auth/sign_ins shows the caller's devices, DELETE
// /auth/sign_ins/{id} signs one out — refresh tokens and access tokens alike — and a sign-in
// that ends on its own (logout, a reused refresh token) takes its access tokens with it.

type Http = Parameters<typeof request>[0];
interface SignIn {
  id: string;
  signedInAt: string;
  lastActiveAt: string;
  userAgent?: string;
  ip?: string;
  current: boolean;
}

const shared = sharedAuthTestApp(test);
const signUp = (http: Http) => signUpThroughApi(http, "devices");

async function logIn(http: Http, email: string, userAgent: string) {
  return (await request(http).post("/auth/login").set("user-agent", userAgent).send({ email, password: TEST_USER_PASSWORD }).expect(200)).body.data as { token: string; refreshToken: string };
}
const me = (http: Http, token: string) => request(http).get("/auth/me").set("authorization", `Bearer ${token}`);
const refresh = (http: Http, refreshToken: string, userAgent = "node") => request(http).post("/auth/refresh_token").set("user-agent", userAgent).send({ refreshToken });
const signIns = (http: Http, token: string) => request(http).get("/auth/sign_ins").set("authorization", `Bearer ${token}`);
const endSignIn = (http: Http, token: string, id: string) => request(http).delete(`/auth/sign_ins/${encodeURIComponent(id)}`).set("authorization", `Bearer ${token}`);
const listed = async (http: Http, token: string) => (await signIns(http, token).expect(200)).body.data as SignIn[];

test("the list shows each device once, newest activity first, with its device and the caller's marked current", async (t) => {
  const { http, document } = await shared;
  const first = await signUp(http);
  const phone = await logIn(http, first.email, "MyApp/2.3 (iPhone; iOS 19.1)");
  const laptop = await logIn(http, first.email, "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0");

  const answer = await signIns(http, laptop.token).expect(200);
  t.is(documentedAnswerProblem(document, "get", "/auth/sign_ins", answer), undefined);
  const list = answer.body.data as SignIn[];
  t.is(list.length, 3);
  t.deepEqual(
    list.map((signIn) => [signIn.userAgent, signIn.current]),
    [
      ["Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", true],
      ["MyApp/2.3 (iPhone; iOS 19.1)", false],
      [list[2]!.userAgent, false],
    ],
  );
  for (const signIn of list) {
    t.truthy(signIn.ip);
    t.false(Number.isNaN(Date.parse(signIn.signedInAt)));
  }

  // A refresh keeps the sign-in (same id, same start), moves it to the top and records the device it came from.
  const phoneId = list[1]!.id;
  const before = list[1]!;
  const rotated = (await refresh(http, phone.refreshToken, "MyApp/2.4 (iPhone; iOS 19.2)").expect(200)).body.data as { token: string };
  const after = await listed(http, rotated.token);
  t.is(after.length, 3);
  t.is(after[0]!.id, phoneId);
  t.true(after[0]!.current);
  t.is(after[0]!.userAgent, "MyApp/2.4 (iPhone; iOS 19.2)");
  t.is(after[0]!.signedInAt, before.signedInAt);
  t.true(Date.parse(after[0]!.lastActiveAt) >= Date.parse(before.lastActiveAt));
});

test("ending another device's sign-in ends its refresh and access tokens at once; this device goes on", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const stolen = await logIn(http, user.email, "Unknown device");
  const target = (await listed(http, user.token)).find((signIn) => !signIn.current)!;

  const answer = await endSignIn(http, user.token, target.id).expect(204);
  t.is(documentedAnswerProblem(document, "delete", "/auth/sign_ins/{id}", answer), undefined);
  t.is(code(await me(http, stolen.token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  t.is(code(await refresh(http, stolen.refreshToken).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
  await me(http, user.token).expect(200);
  await refresh(http, user.refreshToken).expect(200);
  const left = await listed(http, user.token);
  t.is(left.length, 1);
  t.true(left[0]!.current);
  t.not(left[0]!.id, target.id);

  // Ended once, it is not found again.
  t.is(code(await endSignIn(http, user.token, target.id).expect(404)), AuthErrors.SIGN_IN_NOT_FOUND.code);
});

test("ending the caller's own sign-in signs this device out", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  const own = (await listed(http, user.token)).find((signIn) => signIn.current)!;
  await endSignIn(http, user.token, own.id).expect(204);
  t.is(code(await me(http, user.token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  t.is(code(await refresh(http, user.refreshToken).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("another user's sign-in id, an unknown one and hostile ids are 404 and end nothing", async (t) => {
  const { http, document } = await shared;
  const owner = await signUp(http);
  const stranger = await signUp(http);
  const ownerSignIn = (await listed(http, owner.token))[0]!;

  const foreign = await endSignIn(http, stranger.token, ownerSignIn.id).expect(404);
  t.is(code(foreign), AuthErrors.SIGN_IN_NOT_FOUND.code);
  t.is(documentedAnswerProblem(document, "delete", "/auth/sign_ins/{id}", foreign), undefined);
  for (const id of ["00000000-0000-4000-8000-000000000000", '{"$ne":null}', "$where", "x".repeat(5000), "..", "%00"]) {
    t.is(code(await endSignIn(http, stranger.token, id).expect(404)), AuthErrors.SIGN_IN_NOT_FOUND.code, id.slice(0, 40));
  }
  await me(http, owner.token).expect(200);
  await refresh(http, owner.refreshToken).expect(200);
  // Nobody sees another user's sign-ins.
  t.false((await listed(http, stranger.token)).some((signIn) => signIn.id === ownerSignIn.id));
});

test("both routes need a signed-in caller", async (t) => {
  const { http, document } = await shared;
  const anonymous = await request(http).get("/auth/sign_ins").expect(401);
  t.is(documentedAnswerProblem(document, "get", "/auth/sign_ins", anonymous), undefined);
  await request(http).delete("/auth/sign_ins/anything").expect(401);
  t.is(code(await request(http).get("/auth/sign_ins").set("authorization", "Bearer forged").expect(401)), AuthErrors.TOKEN_INVALID.code);
  // A refresh token is not an access token.
  const user = await signUp(http);
  t.is(code(await request(http).get("/auth/sign_ins").set("authorization", `Bearer ${user.refreshToken}`).expect(401)), AuthErrors.TOKEN_INVALID.code);
});

test("logout ends that sign-in's access tokens too, and only that sign-in's", async (t) => {
  const { http } = await shared;
  const phone = await signUp(http);
  const laptop = await logIn(http, phone.email, "Laptop");
  const rotated = (await refresh(http, phone.refreshToken).expect(200)).body.data as { token: string; refreshToken: string };

  await request(http).post("/auth/logout").send({ refreshToken: rotated.refreshToken }).expect(204);
  for (const token of [phone.token, rotated.token]) t.is(code(await me(http, token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  await me(http, laptop.token).expect(200);
  t.is((await listed(http, laptop.token)).length, 1);
});

test("a reused refresh token ends its sign-in's access tokens, the thief's and the victim's", async (t) => {
  const { http } = await shared;
  const victim = await signUp(http);
  const other = await logIn(http, victim.email, "Other device");
  const thief = (await refresh(http, victim.refreshToken).expect(200)).body.data as { token: string; refreshToken: string };

  // The victim's client refreshes with the token the thief already used: a reuse.
  t.is(code(await refresh(http, victim.refreshToken).expect(401)), AuthErrors.REFRESH_TOKEN_REUSED.code);
  for (const token of [victim.token, thief.token]) t.is(code(await me(http, token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  t.is(code(await refresh(http, thief.refreshToken).expect(401)), AuthErrors.REFRESH_TOKEN_INVALID.code);
  await me(http, other.token).expect(200);
});

test("the ended list stays bounded: past its limit every sign-in of the account ends instead of some being let through", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  // The list's limit, reached by the store's own entries: fill it to the brim directly (a hundred
  // log-ins would spend the login budget), then end one more sign-in through the route.
  const until = new Date(Date.now() + 60 * 60 * 1000);
  const entries = Array.from({ length: MAX_ENDED_SIGN_INS }, (_, index) => ({ sid: `filler-${index}`, until }));
  await TestUser.updateOne({ _id: user.userId }, { $set: { endedSignIns: entries } }, { strict: false });
  const second = await logIn(http, user.email, "Second");
  const third = await logIn(http, user.email, "Third");
  await me(http, third.token).expect(200);

  const secondId = (await listed(http, second.token)).find((signIn) => signIn.current)!.id;
  await endSignIn(http, third.token, secondId).expect(204);
  for (const token of [user.token, second.token, third.token]) t.is(code(await me(http, token).expect(401)), AuthErrors.TOKEN_REVOKED.code);
  const stored = (await TestUser.findById(user.userId).select("+endedSignIns +signInVersion").lean()) as { endedSignIns?: unknown[]; signInVersion?: number };
  t.deepEqual(stored.endedSignIns, []);
  t.is(stored.signInVersion, 1);

  // Entries whose tokens have all lapsed are dropped as new ones come.
  const fresh = await logIn(http, user.email, "Fresh");
  await TestUser.updateOne({ _id: user.userId }, { $set: { endedSignIns: [{ sid: "lapsed", until: new Date(Date.now() - 1000) }] } }, { strict: false });
  const freshId = (await listed(http, fresh.token)).find((signIn) => signIn.current)!.id;
  const other = await logIn(http, user.email, "Other");
  await endSignIn(http, other.token, freshId).expect(204);
  const pruned = (await TestUser.findById(user.userId).select("+endedSignIns").lean()) as { endedSignIns: Array<{ sid: string }> };
  t.deepEqual(
    pruned.endedSignIns.map((entry) => entry.sid),
    [freshId],
  );
});

test("the bookkeeping stays hidden: /auth/me and the user's JSON never show the ended sign-ins", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  const other = await logIn(http, user.email, "Other");
  await request(http).post("/auth/logout").send({ refreshToken: other.refreshToken }).expect(204);
  const body = (await me(http, user.token).expect(200)).body.data as Record<string, unknown>;
  t.false("endedSignIns" in body);
  t.false("signInVersion" in body);
  const stored = (await TestUser.findById(user.userId).select("+endedSignIns").lean()) as { endedSignIns: unknown[] };
  t.is(stored.endedSignIns.length, 1);
});
