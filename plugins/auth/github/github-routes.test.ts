import test from "ava";
import nock from "nock";
import request from "supertest";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { authTestApp, errorCode as code, JWT_ENV, loopbackOnlyNetwork, TestUser, uniqueEmail } from "../../../test/support/auth-test-app.js";
import { ValidationErrors } from "../../validation/index.js";
import { AuthErrors } from "../errors.js";
import { tokenDigest } from "../jwt/token-digest.js";
import { OAuthStateSigner } from "./oauth-state.js";

type Http = Parameters<typeof request>[0];

const APP = "https://app.example.com";
const GITHUB = {
  clientId: "gh-client",
  clientSecret: "gh-secret",
  callbackURL: "http://localhost:3000/auth/github/callback",
  allowedReturnOrigins: [APP],
};

loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

let githubIds = 1000;
interface FakeAccount {
  id: number;
  login: string;
  emails: Array<{ email: string; verified: boolean; primary: boolean }>;
}
function fakeAccount(emails: FakeAccount["emails"] = []): FakeAccount {
  const id = ++githubIds + process.pid * 10_000;
  return { id, login: `octo-${id}`, emails };
}

/** GitHub answers one code exchange for `account`. */
function mockGitHub(code: string, account: FakeAccount): void {
  const accessToken = `gho_${code}`;
  nock("https://github.com")
    .post("/login/oauth/access_token", (body) => body.code === code && body.client_id === GITHUB.clientId && body.client_secret === GITHUB.clientSecret)
    .reply(200, { access_token: accessToken, token_type: "bearer", scope: "read:user,user:email" });
  nock("https://api.github.com")
    .get("/user")
    .matchHeader("authorization", `Bearer ${accessToken}`)
    .reply(200, { id: account.id, login: account.login, html_url: `https://github.com/${account.login}`, avatar_url: `https://avatars.example/${account.id}` });
  nock("https://api.github.com").get("/user/emails").matchHeader("authorization", `Bearer ${accessToken}`).reply(200, account.emails);
}

let codes = 0;
const nextCode = () => `code-${process.pid}-${++codes}`;

/** `GET /auth/github` → the state GitHub would echo and the nonce cookie the browser got. */
async function beginLogin(http: Http, query: Record<string, string> = {}) {
  const response = await request(http).get("/auth/github").query(query).expect(302);
  const location = new URL(response.headers.location!);
  const cookie = ([] as string[]).concat(response.headers["set-cookie"] ?? []).find((line) => line.startsWith("svc_github_oauth="));
  return { location, state: location.searchParams.get("state")!, cookie: cookie?.split(";")[0] };
}

function callback(http: Http, query: Record<string, string>, cookie?: string) {
  const call = request(http).get("/auth/github/callback").query(query);
  return cookie ? call.set("Cookie", cookie) : call;
}

/** GitHub answers a fresh code for `account`, and the browser brings it back to the callback. */
function returnFromGitHub(http: Http, account: FakeAccount, state: string, cookie?: string) {
  const githubCode = nextCode();
  mockGitHub(githubCode, account);
  return callback(http, { code: githubCode, state }, cookie);
}

async function signup(http: Http, email = uniqueEmail()) {
  const response = await request(http).post("/auth/signup").send({ email, password: "correct horse battery staple" }).expect(201);
  return { email, ...(response.body.data as { token: string; refreshToken: string; userId: string }) };
}

test.serial("the full flow: redirect to GitHub → callback → one-time code → tokens", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const { location, state, cookie } = await beginLogin(http, { returnTo: `${APP}/signed-in?tab=1` });
  t.is(location.origin + location.pathname, "https://github.com/login/oauth/authorize");
  t.is(location.searchParams.get("client_id"), GITHUB.clientId);
  t.is(location.searchParams.get("redirect_uri"), GITHUB.callbackURL);
  t.truthy(cookie);

  const account = fakeAccount([{ email: uniqueEmail("octo"), verified: true, primary: true }]);
  const back = await returnFromGitHub(http, account, state, cookie).expect(302);
  const target = new URL(back.headers.location!);
  t.is(target.origin + target.pathname, `${APP}/signed-in`);
  t.is(target.searchParams.get("tab"), "1");
  t.is(back.headers["referrer-policy"], "no-referrer");
  // Tokens never travel in the URL.
  t.false(back.headers.location!.includes("eyJ"));
  const authCode = target.searchParams.get("authCode")!;
  t.truthy(authCode);

  const tokens = await request(http).post("/auth/github/token").send({ authCode }).expect(200);
  const { token, refreshToken, userId } = tokens.body.data;
  t.truthy(refreshToken);
  const me = await request(http).get("/auth/me").set("Authorization", `Bearer ${token}`).expect(200);
  t.like(me.body.data, { id: userId, githubId: String(account.id), githubUsername: account.login, email: account.emails[0]!.email, admin: false });

  // Single use.
  t.is(code(await request(http).post("/auth/github/token").send({ authCode }).expect(400)), AuthErrors.OAUTH_CODE_INVALID.code);

  // Signing in again with the same GitHub account finds the same user.
  const again = await beginLogin(http, { returnTo: APP });
  const secondBack = await returnFromGitHub(http, account, again.state, again.cookie).expect(302);
  const secondAuthCode = new URL(secondBack.headers.location!).searchParams.get("authCode");
  const secondTokens = await request(http).post("/auth/github/token").send({ authCode: secondAuthCode }).expect(200);
  t.is(secondTokens.body.data.userId, userId);
  t.true(nock.isDone());
});

test.serial("without returnTo the callback answers with the one-time code", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const { state, cookie } = await beginLogin(http);
  const back = await returnFromGitHub(http, fakeAccount(), state, cookie).expect(200);
  t.is(typeof back.body.data.authCode, "string");
  await request(http).post("/auth/github/token").send({ authCode: back.body.data.authCode }).expect(200);
});

test.serial("state mismatch: missing or foreign cookie, forged and expired state are refused before GitHub is called", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const mine = await beginLogin(http, { returnTo: APP });
  const theirs = await beginLogin(http, { returnTo: APP });

  t.is(code(await callback(http, { code: "x", state: mine.state }).expect(400)), AuthErrors.OAUTH_STATE_INVALID.code);
  t.is(code(await callback(http, { code: "x", state: mine.state }, theirs.cookie).expect(400)), AuthErrors.OAUTH_STATE_INVALID.code);

  const [header, payload, signature] = mine.state.split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
  const forged = [header, Buffer.from(JSON.stringify({ ...claims, rt: "https://evil.example/" })).toString("base64url"), signature].join(".");
  t.is(code(await callback(http, { code: "x", state: forged }, mine.cookie).expect(400)), AuthErrors.OAUTH_STATE_INVALID.code);

  const nonce = mine.cookie!.split("=")[1]!;
  const expired = await new OAuthStateSigner(JWT_ENV.SESSION_SECRET, "github", 600, () => new Date(Date.now() - 3_600_000)).sign({ mode: "login", nonce });
  t.is(code(await callback(http, { code: "x", state: expired }, mine.cookie).expect(400)), AuthErrors.OAUTH_STATE_INVALID.code);
  t.is(code(await callback(http, { code: "x" }, mine.cookie).expect(400)), AuthErrors.OAUTH_STATE_INVALID.code);
  t.true(nock.isDone(), "GitHub was never called");
});

test.serial("open-redirect attempts via returnTo are refused", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  for (const returnTo of ["https://evil.example/", "//evil.example", `${APP}.evil.example/`, `${APP}@evil.example/`, "javascript:alert(1)", "/relative"]) {
    const response = await request(http).get("/auth/github").query({ returnTo }).expect(400);
    t.is(code(response), AuthErrors.RETURN_TO_NOT_ALLOWED.code);
    t.false("location" in response.headers);
  }
  const { token } = await signup(http);
  const link = await request(http).get("/auth/github/link").query({ returnTo: "https://evil.example/" }).set("Authorization", `Bearer ${token}`).expect(400);
  t.is(code(link), AuthErrors.RETURN_TO_NOT_ALLOWED.code);
});

test.serial("a verified email links to the existing account when allowAccountLinking is on", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: { ...GITHUB, allowAccountLinking: true } });
  const { email, userId } = await signup(http);
  const { state, cookie } = await beginLogin(http, { returnTo: APP });
  const account = fakeAccount([{ email: email.toUpperCase(), verified: true, primary: true }]);
  const back = await returnFromGitHub(http, account, state, cookie).expect(302);
  const tokens = await request(http).post("/auth/github/token").send({ authCode: new URL(back.headers.location!).searchParams.get("authCode") }).expect(200);
  t.is(tokens.body.data.userId, userId);
  t.like(await TestUser.findById(userId).lean(), { githubId: String(account.id) });
});

test.serial("an unverified email never links, and linking is off by default", async (t) => {
  const linking = await authTestApp(t, { githubAuth: { ...GITHUB, allowAccountLinking: true } });
  const victim = await signup(linking.http);
  const attempt = await beginLogin(linking.http, { returnTo: APP });
  const back = await returnFromGitHub(linking.http, fakeAccount([{ email: victim.email, verified: false, primary: true }]), attempt.state, attempt.cookie).expect(302);
  // Not linked: a new, separate account without the unverified email is created instead.
  const tokens = await request(linking.http).post("/auth/github/token").send({ authCode: new URL(back.headers.location!).searchParams.get("authCode") }).expect(200);
  t.not(tokens.body.data.userId, victim.userId);
  t.is((await TestUser.findById(victim.userId).lean())?.githubId, undefined);

  const strict = await authTestApp(t, { githubAuth: GITHUB });
  const owner = await signup(strict.http);
  const second = await beginLogin(strict.http, { returnTo: APP });
  const refused = await returnFromGitHub(strict.http, fakeAccount([{ email: owner.email, verified: true, primary: true }]), second.state, second.cookie).expect(302);
  t.is(new URL(refused.headers.location!).searchParams.get("authError"), AuthErrors.ACCOUNT_EXISTS.code);
  t.is(new URL(refused.headers.location!).searchParams.get("authCode"), null);
});

test.serial("link and unlink GitHub for a signed-in user; a link code only works for the user who started it", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const alice = await signup(http);
  const mallory = await signup(http);
  const account = fakeAccount();

  const start = await request(http).get("/auth/github/link").query({ returnTo: `${APP}/settings` }).set("Authorization", `Bearer ${alice.token}`).expect(200);
  const state = new URL(start.body.data.url).searchParams.get("state")!;
  const back = await returnFromGitHub(http, account, state).expect(302);
  const linkCode = new URL(back.headers.location!).searchParams.get("linkCode")!;
  t.truthy(linkCode);
  // Not linked until Alice confirms with her own token.
  t.is((await TestUser.findById(alice.userId).lean())?.githubId, undefined);

  const stolen = await request(http).post("/auth/github/link").set("Authorization", `Bearer ${mallory.token}`).send({ linkCode }).expect(400);
  t.is(code(stolen), AuthErrors.OAUTH_CODE_INVALID.code);
  t.is((await TestUser.findById(mallory.userId).lean())?.githubId, undefined);

  // The failed attempt burned the code; Alice starts again.
  const restart = await request(http).get("/auth/github/link").set("Authorization", `Bearer ${alice.token}`).expect(200);
  const answer = await returnFromGitHub(http, account, new URL(restart.body.data.url).searchParams.get("state")!).expect(200);
  const linked = await request(http).post("/auth/github/link").set("Authorization", `Bearer ${alice.token}`).send({ linkCode: answer.body.data.linkCode }).expect(200);
  t.like(linked.body.data, { id: alice.userId, githubId: String(account.id), githubUsername: account.login });

  // The same GitHub account cannot be linked to Mallory as well.
  const malloryStart = await request(http).get("/auth/github/link").set("Authorization", `Bearer ${mallory.token}`).expect(200);
  const taken = await returnFromGitHub(http, account, new URL(malloryStart.body.data.url).searchParams.get("state")!).expect(409);
  t.is(code(taken), AuthErrors.GITHUB_ALREADY_LINKED.code);

  const unlinked = await request(http).delete("/auth/github/unlink").set("Authorization", `Bearer ${alice.token}`).expect(200);
  t.is(unlinked.body.data.githubId, undefined);
  await request(http).get("/auth/github/link").expect(401);
  await request(http).delete("/auth/github/unlink").expect(401);
});

test.serial("one-time codes are in no log line, also when their redemption is refused and they stay usable", async (t) => {
  const { http, logs } = await authTestApp(t, { githubAuth: GITHUB });
  const alice = await signup(http);
  const start = await request(http).get("/auth/github/link").query({ returnTo: `${APP}/settings` }).set("Authorization", `Bearer ${alice.token}`).expect(200);
  const back = await returnFromGitHub(http, fakeAccount(), new URL(start.body.data.url).searchParams.get("state")!).expect(302);
  const linkCode = new URL(back.headers.location!).searchParams.get("linkCode")!;
  // Sent without the token (or sent where a client puts it by mistake): refused, and still live.
  await request(http).post("/auth/github/link").send({ linkCode }).expect(401);
  await request(http).get("/auth/github/link").query({ linkCode }).expect(401);
  const login = await beginLogin(http);
  const authCode = (await returnFromGitHub(http, fakeAccount(), login.state, login.cookie).expect(200)).body.data.authCode as string;
  await request(http).post("/auth/github/token").set("Content-Type", "text/plain").send(JSON.stringify({ authCode })).expect(415);
  await request(http).post("/auth/github/token").send({ authCode, codeVerifier: "not-the-verifier" }).expect(200);

  const logged = logs.text();
  t.true(logged.includes("/auth/github/link"), "the requests were logged");
  t.false(logged.includes(linkCode), "linkCode");
  t.false(logged.includes(authCode), "authCode");
  t.false(logged.includes("not-the-verifier"), "codeVerifier");
  await request(http).post("/auth/github/link").set("Authorization", `Bearer ${alice.token}`).send({ linkCode }).expect(200);
});

test.serial("unlinking is refused when GitHub is the only way to sign in", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const { state, cookie } = await beginLogin(http);
  const back = await returnFromGitHub(http, fakeAccount(), state, cookie).expect(200);
  const tokens = await request(http).post("/auth/github/token").send({ authCode: back.body.data.authCode }).expect(200);
  const refused = await request(http).delete("/auth/github/unlink").set("Authorization", `Bearer ${tokens.body.data.token}`).expect(409);
  t.is(code(refused), AuthErrors.LAST_SIGN_IN_METHOD.code);
  t.truthy((await TestUser.findById(tokens.body.data.userId).lean())?.githubId);
});

test.serial("with a code challenge, the exchange needs the matching verifier", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const verifier = "a-high-entropy-verifier-0123456789-abcdefghijklmnop";
  const run = async () => {
    const { state, cookie } = await beginLogin(http, { codeChallenge: tokenDigest(verifier) });
    return (await returnFromGitHub(http, fakeAccount(), state, cookie).expect(200)).body.data.authCode as string;
  };
  const first = await run();
  t.is(code(await request(http).post("/auth/github/token").send({ authCode: first }).expect(400)), AuthErrors.OAUTH_CODE_INVALID.code);
  const second = await run();
  t.is(code(await request(http).post("/auth/github/token").send({ authCode: second, codeVerifier: "wrong" }).expect(400)), AuthErrors.OAUTH_CODE_INVALID.code);
  const third = await run();
  await request(http).post("/auth/github/token").send({ authCode: third, codeVerifier: verifier }).expect(200);
  const malformed = await request(http).get("/auth/github").query({ codeChallenge: "short" }).expect(400);
  t.is(code(malformed), ValidationErrors.INVALID_QUERY.code);
  t.is(malformed.body.errors[0].source.parameter, "codeChallenge");
});

test.serial("provider failures and disabled users come back to returnTo as authError", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const failing = await beginLogin(http, { returnTo: APP });
  nock("https://github.com").post("/login/oauth/access_token").reply(200, { error: "bad_verification_code" });
  const failed = await callback(http, { code: "expired-code", state: failing.state }, failing.cookie).expect(302);
  t.is(new URL(failed.headers.location!).searchParams.get("authError"), AuthErrors.OAUTH_PROVIDER_FAILED.code);

  const denied = await beginLogin(http, { returnTo: APP });
  const cancelled = await callback(http, { error: "access_denied", state: denied.state }, denied.cookie).expect(302);
  t.is(new URL(cancelled.headers.location!).searchParams.get("authError"), AuthErrors.OAUTH_PROVIDER_FAILED.code);

  const account = fakeAccount();
  const first = await beginLogin(http);
  const created = await returnFromGitHub(http, account, first.state, first.cookie).expect(200);
  const tokens = await request(http).post("/auth/github/token").send({ authCode: created.body.data.authCode }).expect(200);
  await TestUser.updateOne({ _id: tokens.body.data.userId }, { $set: { disabled: true } });
  const again = await beginLogin(http, { returnTo: APP });
  const refused = await returnFromGitHub(http, account, again.state, again.cookie).expect(302);
  t.is(new URL(refused.headers.location!).searchParams.get("authError"), AuthErrors.USER_DISABLED.code);
});

test.serial("with emailVerificationPlugin, a GitHub sign-up starts verified, and so does an account linked by a GitHub-verified email; a sign-up without an email does not", async (t) => {
  const mongoose = (await import("mongoose")).default;
  const { baseUserPlugin } = await import("../users/base-user-plugin.js");
  const { githubUserPlugin } = await import("../users/github-user-plugin.js");
  const { emailVerificationPlugin } = await import("../users/email-verification-plugin.js");
  const schema = new mongoose.Schema({}, { strict: "throw" });
  schema.plugin(baseUserPlugin);
  schema.plugin(githubUserPlugin);
  schema.plugin(emailVerificationPlugin);
  const Verifying = mongoose.models.AuthVerifyingGitHubUser ?? mongoose.model("AuthVerifyingGitHubUser", schema);
  const { http } = await authTestApp(t, { userModel: Verifying, githubAuth: { ...GITHUB, allowAccountLinking: true } });
  const verifiedAt = async (userId: string) => ((await Verifying.findById(userId).lean()) as { emailVerifiedAt?: Date } | null)?.emailVerifiedAt;
  const signIn = async (account: FakeAccount) => {
    const { state, cookie } = await beginLogin(http, { returnTo: APP });
    const back = await returnFromGitHub(http, account, state, cookie).expect(302);
    const authCode = new URL(back.headers.location!).searchParams.get("authCode");
    return (await request(http).post("/auth/github/token").send({ authCode }).expect(200)).body.data.userId as string;
  };

  const fresh = await signIn(fakeAccount([{ email: uniqueEmail("octo"), verified: true, primary: true }]));
  t.true((await verifiedAt(fresh)) instanceof Date);

  const existing = await signup(http);
  t.is(await verifiedAt(existing.userId), undefined);
  t.is(await signIn(fakeAccount([{ email: existing.email, verified: true, primary: true }])), existing.userId);
  t.true((await verifiedAt(existing.userId)) instanceof Date);

  const noEmail = await signIn(fakeAccount([{ email: uniqueEmail("hidden"), verified: false, primary: true }]));
  t.is(await verifiedAt(noEmail), undefined);
});

test.serial("the start fails when the user model lacks the GitHub fields", async (t) => {
  const mongoose = (await import("mongoose")).default;
  const { baseUserPlugin } = await import("../users/base-user-plugin.js");
  const schema = new mongoose.Schema({});
  schema.plugin(baseUserPlugin);
  const Plain = mongoose.models.AuthPlainUser ?? mongoose.model("AuthPlainUser", schema);
  const error = (await t.throwsAsync(authTestApp(t, { userModel: Plain, githubAuth: GITHUB }))) as { code?: string };
  t.is(error.code, AuthErrors.USER_MODEL_FIELD_MISSING.code);
});

test("the start fails naming a GitHub option that is unset or empty (e.g. process.env.GITHUB_CLIENT_ID! with the variable unset)", async (t) => {
  for (const [option, value] of [["clientId", undefined], ["clientSecret", ""], ["callbackURL", "  "]] as const) {
    const error = (await t.throwsAsync(authTestApp(t, { githubAuth: { ...GITHUB, [option]: value as unknown as string } }))) as Error & { code?: string };
    t.is(error.code, AuthErrors.OAUTH_OPTION_INVALID.code, option);
    t.true(error.message.includes(`githubAuth.${option}`), error.message);
  }
});
