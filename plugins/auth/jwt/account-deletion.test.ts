import test from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import type { RequestUser } from "../../../index.js";
import { createTestApp } from "../../../hosts/testing.js";
import { arrival, errorCode as code, JWT_ENV, SESSION_ENV, sharedAuthTestApp, TestUser, TEST_USER_PASSWORD, uniqueEmail } from "../../../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../../../test/support/documented-answer.js";
import { authPlugin } from "../auth-plugin.js";
import { AuthErrors } from "../errors.js";

// A user deleting their own account under the JWT provider, through the real routes: the
// password (or a recent sign-in) confirms it, the account is soft-deleted, every sign-in ends,
// mailed links stop working, and the app's onDeleted cleans up.

type Http = Parameters<typeof request>[0];
const deleted: RequestUser[] = [];
const failing = { onDeleted: false };
const clock = { offsetMs: 0 };
const resets: Array<{ email: string; token: string }> = [];

const shared = sharedAuthTestApp(test, {
  rateLimits: { perAccount: { points: 3, durationSeconds: 60 } },
  accountDeletion: {
    onDeleted: (user) => {
      if (failing.onDeleted) throw new Error("the cleanup is down");
      deleted.push(user);
    },
  },
  passwordReset: { send: (mail) => void resets.push(mail) },
  now: () => new Date(Date.now() + clock.offsetMs),
});

async function signUp(http: Http) {
  const email = uniqueEmail("leaving");
  const response = await request(http).post("/auth/signup").send({ email, password: TEST_USER_PASSWORD }).expect(201);
  return { email, ...(response.body.data as { token: string; refreshToken: string; userId: string }) };
}
const remove = (http: Http, token: string | undefined, body?: unknown) => {
  const call = request(http).post("/auth/delete_account");
  if (token !== undefined) call.set("authorization", `Bearer ${token}`);
  return body === undefined ? call : call.send(body as object);
};
const me = (http: Http, token: string) => request(http).get("/auth/me").set("authorization", `Bearer ${token}`);
const stored = (userId: string) => TestUser.findOne({ _id: userId, deleted: { $in: [true, false] } }).lean<{ deleted?: boolean; email?: string }>();
/** Makes an account passwordless, as one made by GitHub sign-in is. */
const dropPassword = (userId: string) => mongoose.connection.collection("svc_auth_credentials").deleteOne({ _id: userId as never });

test.serial("the right password deletes the account: soft-deleted, every sign-in ended, the password gone, onDeleted told, the email still taken", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const laptop = (await request(http).post("/auth/login").send({ email: user.email, password: TEST_USER_PASSWORD }).expect(200)).body.data as { token: string; refreshToken: string };
  await request(http).post("/auth/password_reset").send({ email: user.email }).expect(202);
  const reset = await arrival(() => resets.findLast((mail) => mail.email === user.email), "the reset mail");

  const answer = await remove(http, user.token, { currentPassword: TEST_USER_PASSWORD }).expect(204);
  t.is(documentedAnswerProblem(document, "post", "/auth/delete_account", answer), undefined);
  t.is((await stored(user.userId))?.deleted, true);
  for (const token of [user.token, laptop.token]) t.is(code(await me(http, token).expect(401)), AuthErrors.USER_NOT_FOUND.code);
  for (const refreshToken of [user.refreshToken, laptop.refreshToken]) await request(http).post("/auth/refresh_token").send({ refreshToken }).expect(401);
  t.is(code(await request(http).post("/auth/login").send({ email: user.email, password: TEST_USER_PASSWORD }).expect(401)), AuthErrors.INVALID_CREDENTIALS.code);
  t.is(code(await request(http).post("/auth/password_reset/confirm").send({ token: reset.token, newPassword: "a way back in please" }).expect(400)), AuthErrors.RESET_TOKEN_INVALID.code);
  t.deepEqual(
    deleted.filter((entry) => entry.id === user.userId).map((entry) => entry.email),
    [user.email],
  );
  // A deleted account keeps its email, as every soft-deleted account does.
  t.is(code(await request(http).post("/auth/signup").send({ email: user.email, password: TEST_USER_PASSWORD }).expect(409)), AuthErrors.EMAIL_TAKEN.code);
});

test.serial("a wrong or missing password is 403 and deletes nothing; guesses spend the login budget (429)", async (t) => {
  const { http, document } = await shared;
  const user = await signUp(http);
  const wrong = await remove(http, user.token, { currentPassword: "not the password" }).expect(403);
  t.is(code(wrong), AuthErrors.CURRENT_PASSWORD_INVALID.code);
  t.is(documentedAnswerProblem(document, "post", "/auth/delete_account", wrong), undefined);
  t.is(code(await remove(http, user.token, {}).expect(403)), AuthErrors.CURRENT_PASSWORD_INVALID.code);
  await remove(http, user.token, { currentPassword: "nor this" }).expect(403);
  t.is(code(await remove(http, user.token, { currentPassword: TEST_USER_PASSWORD }).expect(429)), AuthErrors.RATE_LIMITED.code);
  t.is((await stored(user.userId))?.deleted, false);
  await me(http, user.token).expect(200);
});

test.serial("an account without a password confirms with a recent sign-in: an old one is 403 AUTH_RECENT_SIGN_IN_REQUIRED", async (t) => {
  const { http, document } = await shared;
  const fresh = await signUp(http);
  await dropPassword(fresh.userId);
  await remove(http, fresh.token).expect(204);
  t.is((await stored(fresh.userId))?.deleted, true);

  const stale = await signUp(http);
  await dropPassword(stale.userId);
  clock.offsetMs = 11 * 60 * 1000; // past the default 10 minutes, within the token's 15
  try {
    const refused = await remove(http, stale.token, {}).expect(403);
    t.is(code(refused), AuthErrors.RECENT_SIGN_IN_REQUIRED.code);
    t.is(documentedAnswerProblem(document, "post", "/auth/delete_account", refused), undefined);
  } finally {
    clock.offsetMs = 0;
  }
  t.is((await stored(stale.userId))?.deleted, false);
});

test.serial("a failing onDeleted is logged with the user id; the account stays deleted", async (t) => {
  const { http, logs } = await shared;
  const user = await signUp(http);
  failing.onDeleted = true;
  try {
    await remove(http, user.token, { currentPassword: TEST_USER_PASSWORD }).expect(204);
  } finally {
    failing.onDeleted = false;
  }
  t.is((await stored(user.userId))?.deleted, true);
  t.true(logs.lines.some((line) => line.level === "error" && line.message.includes("accountDeletion.onDeleted failed") && line.userId === user.userId));
});

test.serial("hostile and malformed bodies are 400 and delete nothing; anonymous callers are 401", async (t) => {
  const { http } = await shared;
  const user = await signUp(http);
  for (const body of [{ currentPassword: { $ne: "" } }, { currentPassword: 42 }, { currentPassword: TEST_USER_PASSWORD, userId: "someone-else" }, [TEST_USER_PASSWORD]]) {
    t.regex(code(await remove(http, user.token, body).expect(400)) ?? "", /^VALIDATION_/, JSON.stringify(body));
  }
  await remove(http, undefined, { currentPassword: TEST_USER_PASSWORD }).expect(401);
  t.is((await stored(user.userId))?.deleted, false);
});

test("a user model without isDeletedPlugin's field loses the record; without the option there is no route; session auth refuses the option", async (t) => {
  const schema = new Schema({ name: { type: String, description: "Name" } }, { strict: "throw" });
  const { baseUserPlugin } = await import("../users/base-user-plugin.js");
  schema.plugin(baseUserPlugin);
  const Plain = mongoose.models.DeletablePlainUser ?? mongoose.model("DeletablePlainUser", schema);
  const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: Plain, accountDeletion: true }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const email = uniqueEmail("plain");
  const signedUp = (await request(http).post("/auth/signup").send({ email, password: TEST_USER_PASSWORD }).expect(201)).body.data as { token: string; userId: string };
  await remove(http, signedUp.token, { currentPassword: TEST_USER_PASSWORD }).expect(204);
  t.is(await Plain.findById(signedUp.userId).lean(), null);
  // The address is free again: the record is gone.
  const again = (await request(http).post("/auth/signup").send({ email, password: TEST_USER_PASSWORD }).expect(201)).body.data as { token: string };

  const off = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: Plain }));
  const offHttp = await off.build();
  t.teardown(() => off.stop());
  await remove(offHttp, again.token, { currentPassword: TEST_USER_PASSWORD }).expect(404);

  const session = (await createTestApp({ env: SESSION_ENV })).register(authPlugin({ userModel: Plain, accountDeletion: true }));
  const error = (await t.throwsAsync(session.build())) as Error & { code?: string };
  t.is(error.code, AuthErrors.ACCOUNT_DELETION_OPTION_INVALID.code);
  await session.stop().catch(() => undefined);
});
