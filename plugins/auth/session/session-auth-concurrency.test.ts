import test from "ava";
import express from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import type { SvcApp } from "../../../hosts/svc-app.js";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { AuthErrors } from "../errors.js";
import { baseUserPlugin, federatedIdentityPlugin, isDisabledPlugin } from "../index.js";
import { authTestApp, errorCode as code, loopbackOnlyNetwork, SESSION_ENV, TestUser, uniqueEmail } from "../../../test/support/auth-test-app.js";

// Requests at one session identity at once: what the sequential tests in session-auth.test.ts
// miss. Bursts are fired together (Promise.all); where an interleaving matters, the test holds
// requests at a point with a hook of its own user model.
loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

const APP = "https://app.example.com";
const PASSWORD = "correct horse battery staple";
const BURST = 10;

const whoami = (app: SvcApp) => {
  const router = express.Router();
  router.get("/whoami", (req, res) => res.json({ data: req.user ?? null }));
  app.register(router);
};

/**
 * A user model whose `findOne` waits, once armed for `n`, until `n` of them have read: requests
 * that look a user up at once all see the state before any of them wrote.
 */
const barrier = { left: 0, waiting: [] as Array<() => void> };
const gatedSchema = new Schema(
  { deleted: { type: Boolean, default: false } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
gatedSchema.plugin(baseUserPlugin);
gatedSchema.plugin(isDisabledPlugin);
gatedSchema.plugin(federatedIdentityPlugin);
gatedSchema.post("findOne", async function () {
  if (barrier.left === 0) return;
  barrier.left--;
  await new Promise<void>((resolve) => {
    barrier.waiting.push(resolve);
    if (barrier.left === 0) for (const release of barrier.waiting.splice(0)) release();
  });
});
const GatedUser = mongoose.models.SessionGatedUser ?? mongoose.model("SessionGatedUser", gatedSchema);

test("sign-ups with one email at once: one 201, the rest 409 AUTH_EMAIL_TAKEN, one user stored", async (t) => {
  const { http } = await authTestApp(t, { sessionAuth: { trustedOrigins: [APP] } }, SESSION_ENV);
  const email = uniqueEmail();
  const responses = await Promise.all(Array.from({ length: BURST }, () => request(http).post("/api/auth/signup/email").send({ email, password: PASSWORD })));
  t.is(responses.filter((r) => r.status === 201).length, 1);
  const refused = responses.filter((r) => r.status !== 201).map((r) => `${r.status} ${code(r)}`);
  t.deepEqual(refused, refused.map(() => `409 ${AuthErrors.EMAIL_TAKEN.code}`));
  t.is(await TestUser.countDocuments({ email }), 1);
  t.is(await mongoose.connection.db!.collection("svc_session_users").countDocuments({ email }), 1);
});

test("sign-ups with one email that all got past every lookup before one stored: the losers are 409 AUTH_EMAIL_TAKEN", async (t) => {
  const { http, logs } = await authTestApp(t, { userModel: GatedUser, sessionAuth: { trustedOrigins: [APP] } }, SESSION_ENV);
  const email = uniqueEmail();
  // The sign-up hook's host-user lookup comes after better-auth's own: held there, every request
  // has found the email free on both sides, and all but one then hit the unique index.
  barrier.left = 3;
  const responses = await Promise.all(Array.from({ length: 3 }, () => request(http).post("/api/auth/signup/email").send({ email, password: PASSWORD })));
  t.deepEqual(responses.map((r) => `${r.status} ${code(r) ?? ""}`).sort(), ["201 ", `409 ${AuthErrors.EMAIL_TAKEN.code}`, `409 ${AuthErrors.EMAIL_TAKEN.code}`]);
  t.is(await GatedUser.countDocuments({ email }), 1);
  // Losing such a race is an expected answer, not a server error worth an error line.
  t.deepEqual(logs.lines.filter((line) => line.level === "error").map((line) => line.message), []);
});

test("first sign-ins of one session identity at once provision one host user and all succeed", async (t) => {
  const { http } = await authTestApp(t, { userModel: GatedUser, sessionAuth: { trustedOrigins: [APP] } }, SESSION_ENV, whoami);
  const email = uniqueEmail();
  const signedUp = await request(http).post("/api/auth/signup/email").send({ email, password: PASSWORD }).expect(201);
  // A better-auth user without its host user yet (as between a sign-up's insert and its session,
  // or before a social identity's first callback completes).
  await GatedUser.deleteOne({ _id: signedUp.body.data.userId });
  // Held after the host-user lookup: every sign-in finds none and creates it.
  barrier.left = 3;
  const responses = await Promise.all(Array.from({ length: 3 }, () => request(http).post("/api/auth/signin/email").send({ email, password: PASSWORD })));
  t.deepEqual(responses.map((r) => `${r.status} ${code(r) ?? ""}`), ["200 ", "200 ", "200 "]);
  const host = await GatedUser.find({ email }).lean();
  t.is(host.length, 1);
  for (const response of responses) {
    t.is(response.body.data.userId, String(host[0]!._id));
    t.is((await request(http).get("/whoami").set("Authorization", `Bearer ${response.body.data.token}`).expect(200)).body.data.id, String(host[0]!._id));
  }
});

/**
 * Holds better-auth's updates of the session record with this token (a session extended on use),
 * made after it read the record, in the MongoDB driver until released.
 */
function holdSessionUpdates(token: string, count: number) {
  const prototype = mongoose.mongo.Collection.prototype as unknown as { findOneAndUpdate: (...args: unknown[]) => Promise<unknown> };
  const original = prototype.findOneAndUpdate;
  let reached!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const gate = { reached: new Promise<void>((resolve) => (reached = resolve)), release: () => release() };
  let waiting = 0;
  prototype.findOneAndUpdate = async function (this: { collectionName: string }, ...args: unknown[]) {
    if (this.collectionName === "svc_sessions" && JSON.stringify(args[0]).includes(token)) {
      if (++waiting === count) {
        prototype.findOneAndUpdate = original;
        reached();
      }
      await held;
    }
    return original.apply(this, args);
  };
  return gate;
}

test("requests extending a session that a sign-out ends meanwhile get no session (401 AUTH_SESSION_INVALID), not a 500", async (t) => {
  const { http } = await authTestApp(t, { sessionAuth: { trustedOrigins: [APP] } }, SESSION_ENV, whoami);
  const { token } = (await request(http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: PASSWORD }).expect(201)).body.data;
  // Last extended two days ago: the next use extends it (better-auth's updateAge is a day).
  const sessions = mongoose.connection.db!.collection("svc_sessions");
  const stored = String(token).split(".")[0]!;
  await sessions.updateOne({ token: stored }, { $set: { updatedAt: new Date(Date.now() - 2 * 86_400_000), expiresAt: new Date(Date.now() + 5 * 86_400_000) } });

  const gate = holdSessionUpdates(stored, 2);
  const using = request(http).get("/whoami").set("Authorization", `Bearer ${token}`).then((response) => response);
  const asking = request(http).get("/api/auth/session").set("Authorization", `Bearer ${token}`).then((response) => response);
  await gate.reached;
  await request(http).post("/api/auth/signout").set("Authorization", `Bearer ${token}`).expect(200);
  gate.release();
  const [used, asked] = await Promise.all([using, asking]);
  t.is(`${used.status} ${code(used)}`, `401 ${AuthErrors.SESSION_INVALID.code}`);
  t.is(asked.status, 200);
  t.is(asked.body.data, null);
  t.is(await sessions.countDocuments({ token: stored }), 0);
  t.is(code(await request(http).get("/whoami").set("Authorization", `Bearer ${token}`).expect(401)), AuthErrors.SESSION_INVALID.code);
});
