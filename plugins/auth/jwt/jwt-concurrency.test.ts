import test from "ava";
import request from "supertest";
import { ACCOUNTS } from "../../../contracts/accounts.js";
import { PASSWORD_HASHER } from "../../../contracts/password-hasher.js";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { AuthErrors } from "../errors.js";
import { authTestApp, errorCode as code, TestUser, uniqueEmail } from "../../../test/support/auth-test-app.js";
import { defaultJWTPayload, type GenerateJWTPayload } from "./jwt-auth-service.js";
import { createScryptHasher } from "../index.js";

// Requests at one account at once: what the sequential tests miss. Bursts are fired together
// (Promise.all); where one order matters, a test holds a request at a point with the
// `generateJWTPayload` hook, which the JWT provider runs between using up a refresh token and
// storing its successor.
test.after.always(() => stopTestDatabase());

const PASSWORD = "correct horse battery staple";
const BURST = 20;
type Http = Parameters<typeof request>[0];

async function signup(http: Http, email = uniqueEmail()) {
  const response = await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  return { email, ...(response.body.data as { token: string; refreshToken: string; userId: string }) };
}

function refresh(http: Http, refreshToken: string) {
  return request(http).post("/auth/refresh_token").send({ refreshToken });
}

/** A `generateJWTPayload` that, once `hold()` is called, stops the next sign-in there until `release()`. */
function payloadGate() {
  let holding = false;
  let reached!: () => void;
  let release!: () => void;
  const gate = {
    reached: Promise.resolve(),
    release: () => release(),
    hold() {
      holding = true;
      gate.reached = new Promise<void>((resolve) => (reached = resolve));
    },
    generateJWTPayload: (async (user) => {
      if (holding) {
        holding = false;
        const released = new Promise<void>((resolve) => (release = resolve));
        reached();
        await released;
      }
      return defaultJWTPayload(user);
    }) as GenerateJWTPayload,
  };
  return gate;
}

test("signups with one email at once: one 201, the rest 409 AUTH_EMAIL_TAKEN, one user stored", async (t) => {
  const { http } = await authTestApp(t);
  const email = uniqueEmail();
  const responses = await Promise.all(Array.from({ length: BURST }, () => request(http).post("/auth/signup").send({ email, password: PASSWORD })));
  t.is(responses.filter((r) => r.status === 201).length, 1);
  t.true(responses.filter((r) => r.status !== 201).every((r) => r.status === 409 && code(r) === AuthErrors.EMAIL_TAKEN.code));
  t.is(await TestUser.countDocuments({ email }), 1);
});

test("refreshes with one token at once: at most one new pair, and the reuse ends the sign-in, that pair included", async (t) => {
  const { http } = await authTestApp(t);
  const { refreshToken } = await signup(http);
  const responses = await Promise.all(Array.from({ length: BURST }, () => refresh(http, refreshToken)));
  const rotated = responses.filter((r) => r.status === 200);
  t.true(rotated.length <= 1);
  t.true(responses.filter((r) => r.status !== 200).every((r) => r.status === 401));
  t.true(responses.some((r) => code(r) === AuthErrors.REFRESH_TOKEN_REUSED.code));
  for (const response of rotated) t.is((await refresh(http, response.body.data.refreshToken)).status, 401);
});

test("a refresh whose token is reused before it stores the successor gets no usable pair", async (t) => {
  const gate = payloadGate();
  const { http } = await authTestApp(t, { generateJWTPayload: gate.generateJWTPayload });
  const { refreshToken } = await signup(http);
  gate.hold();
  const first = refresh(http, refreshToken).then((response) => response);
  await gate.reached; // the first has used the token up
  const reuse = await refresh(http, refreshToken).expect(401);
  t.is(code(reuse), AuthErrors.REFRESH_TOKEN_REUSED.code);
  gate.release();
  // Its successor came too late for the reuse to revoke it with the family: it is revoked now.
  const response = await first;
  t.is(response.status, 401);
  t.is(code(response), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("a password change while a refresh is under way ends that sign-in too", async (t) => {
  const gate = payloadGate();
  const { app, http } = await authTestApp(t, { generateJWTPayload: gate.generateJWTPayload });
  const user = await signup(http);
  gate.hold();
  const pending = refresh(http, user.refreshToken).then((response) => response);
  await gate.reached;
  await app.kernel.container.resolve(ACCOUNTS).setPassword(user.userId, "another correct horse battery");
  gate.release();
  const response = await pending;
  t.is(response.status, 401);
  t.is(code(response), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("logins racing a disable get no usable tokens", async (t) => {
  const { http } = await authTestApp(t);
  const user = await signup(http);
  const [, ...logins] = await Promise.all([
    TestUser.updateOne({ _id: user.userId }, { $set: { disabled: true } }),
    ...Array.from({ length: 5 }, () => request(http).post("/auth/login").send({ email: user.email, password: PASSWORD })),
  ]);
  t.true(logins.every((r) => r.status === 200 || (r.status === 401 && code(r) === AuthErrors.USER_DISABLED.code)));
  for (const login of logins.filter((r) => r.status === 200)) {
    t.is((await request(http).get("/auth/me").set("Authorization", `Bearer ${login.body.data.token}`)).status, 401);
    t.is((await refresh(http, login.body.data.refreshToken)).status, 401);
  }
});

test("a password change while a login with the old password is under way ends that sign-in: 401, no tokens", async (t) => {
  const gate = payloadGate();
  const { app, http } = await authTestApp(t, { generateJWTPayload: gate.generateJWTPayload });
  const user = await signup(http);
  gate.hold();
  // The login has checked the old password and is issuing its tokens.
  const pending = request(http).post("/auth/login").send({ email: user.email, password: PASSWORD }).then((response) => response);
  await gate.reached;
  await app.kernel.container.resolve(ACCOUNTS).setPassword(user.userId, "another correct horse battery");
  gate.release();
  const response = await pending;
  t.is(response.status, 401, JSON.stringify(response.body));
  t.is(code(response), AuthErrors.INVALID_CREDENTIALS.code);
  // The old password no longer signs in; the new one does.
  t.is((await request(http).post("/auth/login").send({ email: user.email, password: PASSWORD })).status, 401);
  t.is((await request(http).post("/auth/login").send({ email: user.email, password: "another correct horse battery" })).status, 200);
});

test("a login's rehash of the old password never overwrites a password changed meanwhile", async (t) => {
  // A hasher that wants every stored hash upgraded (as after raising its cost), and can hold the
  // next hash() it is asked for: the login's rehash, after it checked the old password.
  const inner = createScryptHasher({ cost: 2 ** 10 });
  let holdNext = false;
  let reached!: () => void;
  let release!: () => void;
  const rehashReached = new Promise<void>((resolve) => (reached = resolve));
  const hasher = {
    hash: async (password: string) => {
      if (holdNext) {
        holdNext = false;
        reached();
        await new Promise<void>((resolve) => (release = resolve));
      }
      return inner.hash(password);
    },
    verify: (password: string, stored: string) => inner.verify(password, stored),
    needsRehash: () => true,
  };
  const { app, http } = await authTestApp(t, {}, {}, (built) => void built.override(PASSWORD_HASHER, { useValue: hasher }));
  const user = await signup(http);
  holdNext = true;
  const pending = request(http).post("/auth/login").send({ email: user.email, password: PASSWORD }).then((response) => response);
  await rehashReached;
  await app.kernel.container.resolve(ACCOUNTS).setPassword(user.userId, "another correct horse battery");
  release();
  t.is((await pending).status, 401);
  t.is((await request(http).post("/auth/login").send({ email: user.email, password: "another correct horse battery" })).status, 200, "the new password stands");
  t.is((await request(http).post("/auth/login").send({ email: user.email, password: PASSWORD })).status, 401);
});
