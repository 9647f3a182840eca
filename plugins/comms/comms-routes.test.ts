import test from "ava";
import type { Express } from "express";
import { Types } from "mongoose";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { authTestApp, errorCode, TestUser, uniqueEmail } from "../../test/support/auth-test-app.js";
import { RestErrors } from "../rest/index.js";
import { ValidationErrors } from "../validation/index.js";
import { commsPlugin, CommsErrors, pushTokenModel, type CommsPlugin } from "./index.js";

const PASSWORD = "correct horse battery staple";

let stopApp: (() => Promise<void> | void) | undefined;
const shared = (async () => {
  const comms = commsPlugin({ redactRecipients: false });
  const built = await authTestApp({ teardown: (fn) => void (stopApp = fn) }, {}, {}, (app) => app.register(comms));
  return { http: built.http, comms };
})();
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

async function signup(http: Express, admin = false): Promise<{ token: string; id: string }> {
  const email = uniqueEmail(admin ? "admin" : "user");
  const response = await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  if (admin) await TestUser.updateOne({ email }, { admin: true });
  return { token: response.body.data.token as string, id: response.body.data.userId as string };
}

const auth = (caller: { token: string }) => ({ Authorization: `Bearer ${caller.token}` });
const deviceToken = () => `ExponentPushToken[${new Types.ObjectId().toHexString()}]`;
/** A browser's subscription as JSON, at `endpoint` (by default a fresh one at FCM). */
const subscriptionAt = (endpoint = `https://fcm.googleapis.com/fcm/send/${new Types.ObjectId().toHexString()}`) =>
  JSON.stringify({ endpoint, keys: { p256dh: "BPcMbnWQL5GOYX", auth: "c2VjcmV0c2VjcmV0" } });

test("register, refresh, list own, read own, deactivate own", async (t) => {
  const { http } = await shared;
  const ada = await signup(http);
  const token = deviceToken();
  const created = await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token, kind: "expo", deviceName: "Pixel" }).expect(201);
  t.like(created.body.data, { token, kind: "expo", active: true, ownerId: ada.id, deviceName: "Pixel" });
  const id = created.body.data.id as string;
  const refreshed = await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token, kind: "expo" }).expect(200);
  t.is(refreshed.body.data.id, id);
  t.is(refreshed.body.data.deviceName, "Pixel", "a refresh without a label keeps the owner's");
  const list = await request(http).get("/comms/pushTokens").set(auth(ada)).expect(200);
  t.deepEqual(list.body.data.map((row: { id: string }) => row.id), [id]);
  await request(http).get(`/comms/pushTokens/${id}`).set(auth(ada)).expect(200);
  await request(http).delete(`/comms/pushTokens/${id}`).set(auth(ada)).expect(204);
  t.false((await pushTokenModel().findById(id).lean())!.active);
  const active = await request(http).get("/comms/pushTokens?active=true").set(auth(ada)).expect(200);
  t.is(active.body.total, 0);
});

test("an active token cannot be claimed by another user; an inactive one can", async (t) => {
  const { http } = await shared;
  const [ada, bob] = await Promise.all([signup(http), signup(http)]);
  const token = deviceToken();
  const created = await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token, kind: "expo", deviceName: "Ada's phone" }).expect(201);
  const refused = await request(http).post("/comms/pushTokens").set(auth(bob)).send({ token, kind: "expo" }).expect(409);
  t.is(errorCode(refused), CommsErrors.TOKEN_CLAIMED.code);
  t.is(String((await pushTokenModel().findOne({ token }).lean())!.ownerId), ada.id);
  await request(http).delete(`/comms/pushTokens/${created.body.data.id}`).set(auth(ada)).expect(204);
  const claimed = await request(http).post("/comms/pushTokens").set(auth(bob)).send({ token, kind: "expo" }).expect(200);
  t.like(claimed.body.data, { ownerId: bob.id, active: true });
  t.false("deviceName" in claimed.body.data, "the previous owner's device label does not pass to the new owner");
});

test("a registration sent several times at once is one token, refreshed: never a 409 for its own owner", async (t) => {
  const { http } = await shared;
  const [ada, bob] = await Promise.all([signup(http), signup(http)]);
  const token = deviceToken();
  const answers = await Promise.all([1, 2, 3, 4].map(() => request(http).post("/comms/pushTokens").set(auth(ada)).send({ token, kind: "expo" })));
  t.deepEqual(answers.map((answer) => answer.status).sort(), [200, 200, 200, 201]);
  t.is(new Set(answers.map((answer) => answer.body.data.id)).size, 1);
  t.is(await pushTokenModel().countDocuments({ token }), 1);
  // Another user racing for it still gets the 409: the retry after the duplicate is the owner's only.
  const other = deviceToken();
  const raced = await Promise.all([request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: other, kind: "expo" }), request(http).post("/comms/pushTokens").set(auth(bob)).send({ token: other, kind: "expo" })]);
  t.deepEqual(raced.map((answer) => answer.status).sort(), [201, 409]);
  const loser = raced.find((answer) => answer.status === 409)!;
  t.is(errorCode(loser), CommsErrors.TOKEN_CLAIMED.code);
});

test("other users' tokens are invisible: 404 on read and delete, absent from lists (admins included)", async (t) => {
  const { http } = await shared;
  const [ada, bob, admin] = await Promise.all([signup(http), signup(http), signup(http, true)]);
  const created = await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: subscriptionAt(), kind: "webpush" }).expect(201);
  const id = created.body.data.id as string;
  t.is(errorCode(await request(http).get(`/comms/pushTokens/${id}`).set(auth(bob)).expect(404)), RestErrors.NOT_FOUND.code);
  t.is(errorCode(await request(http).delete(`/comms/pushTokens/${id}`).set(auth(bob)).expect(404)), RestErrors.NOT_FOUND.code);
  t.is((await request(http).get("/comms/pushTokens").set(auth(bob)).expect(200)).body.total, 0);
  t.is((await request(http).get("/comms/pushTokens").set(auth(admin)).expect(200)).body.total, 0);
  t.true((await pushTokenModel().findById(id).lean())!.active);
});

test("hostile input is a 4xx and writes nothing", async (t) => {
  const { http } = await shared;
  const ada = await signup(http);
  const plain = deviceToken();
  t.is(errorCode(await request(http).post("/comms/pushTokens").send({ token: deviceToken(), kind: "expo" }).expect(401)), HttpErrors.UNAUTHENTICATED.code);
  t.is(errorCode(await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: { $gt: "" }, kind: "expo" }).expect(400)), ValidationErrors.OPERATOR_IN_BODY.code);
  t.is(errorCode(await request(http).post("/comms/pushTokens").set(auth(ada)).send({ $where: "1", token: "x", kind: "expo" }).expect(400)), ValidationErrors.OPERATOR_IN_BODY.code);
  await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: "x", kind: "carrier-pigeon" }).expect(400);
  await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: "", kind: "expo" }).expect(400);
  await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: "x".repeat(5000), kind: "expo" }).expect(400);
  await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: plain, kind: "expo", ownerId: new Types.ObjectId().toHexString(), active: false }).expect(201);
  await request(http).delete("/comms/pushTokens/not-an-id").set(auth(ada)).expect(404);
  await request(http).delete("/comms/pushTokens/%7B%22%24gt%22%3A%22%22%7D").set(auth(ada)).expect(404);
  await request(http).patch(`/comms/pushTokens/${new Types.ObjectId().toHexString()}`).set(auth(ada)).send({ active: true }).expect(403);
  const stored = await pushTokenModel().findOne({ token: plain }).lean();
  t.is(String(stored!.ownerId), ada.id, "ownerId comes from the signed-in user, never the body");
  t.true(stored!.active);
  t.is(await pushTokenModel().countDocuments({ ownerId: ada.id }), 1, "the refused requests wrote nothing");
});

test("a token its provider would not send to is refused with 400 COMMS_PUSH_TOKEN_INVALID: no internal Web Push endpoints", async (t) => {
  const { http } = await shared;
  const ada = await signup(http);
  for (const [token, kind] of [
    [subscriptionAt("https://169.254.169.254/latest/meta-data"), "webpush"],
    [subscriptionAt("https://127.0.0.1:8443/push"), "webpush"],
    [subscriptionAt("http://fcm.googleapis.com/fcm/send/abc"), "webpush"],
    [JSON.stringify({ endpoint: "https://fcm.googleapis.com/fcm/send/abc" }), "webpush"],
    ["garbage", "webpush"],
    ["garbage", "expo"],
    [subscriptionAt(), "expo"],
  ] as const) {
    const refused = await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token, kind }).expect(400);
    t.is(errorCode(refused), CommsErrors.PUSH_TOKEN_INVALID.code);
    t.is(refused.body.errors[0].title, "Push token invalid");
    t.is(typeof refused.body.errors[0].detail, "string");
  }
  t.is(await pushTokenModel().countDocuments({ ownerId: ada.id }), 0);
  await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: subscriptionAt("https://updates.push.services.mozilla.com/wpush/v2/x"), kind: "webpush" }).expect(201);
});

test("a user has at most 20 active tokens: registering one more deactivates the least recently registered", async (t) => {
  const { http } = await shared;
  const ada = await signup(http);
  const tokens = Array.from({ length: 20 }, () => deviceToken());
  for (const token of tokens) await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token, kind: "expo" }).expect(201);
  // Refreshing the first makes the second the least recently registered.
  await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: tokens[0], kind: "expo" }).expect(200);
  await request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: deviceToken(), kind: "expo" }).expect(201);
  t.is(await pushTokenModel().countDocuments({ ownerId: ada.id, active: true }), 20);
  t.like(await pushTokenModel().findOne({ token: tokens[1] }).lean(), { active: false, deactivationReason: "limit" });
  t.true((await pushTokenModel().findOne({ token: tokens[0] }).lean())!.active);
  // Concurrent registrations together still leave at most the limit.
  await Promise.all(Array.from({ length: 5 }, () => request(http).post("/comms/pushTokens").set(auth(ada)).send({ token: deviceToken(), kind: "expo" }).expect(201)));
  t.is(await pushTokenModel().countDocuments({ ownerId: ada.id, active: true }), 20);
  t.true(hasErrorCode(t.throws(() => commsPlugin({ maxPushTokensPerUser: 0 })), CommsErrors.INVALID_TOKEN_LIMIT.code));
});

test("the delivery log is admins only, newest first, filtered and paginated", async (t) => {
  const { http, comms } = await shared;
  const [ada, admin] = await Promise.all([signup(http), signup(http, true)]);
  const service = (comms as CommsPlugin).getCommsService();
  const to = uniqueEmail("log");
  const first = await service.sendMail({ to, subject: "one", text: "1" });
  const second = await service.sendMail({ to, subject: "two", text: "2" });
  await service.sendSms({ to: "+14155550100", body: "x" });
  await service.flushLog();
  t.is(errorCode(await request(http).get("/comms/messages").expect(401)), HttpErrors.UNAUTHENTICATED.code);
  await request(http).get("/comms/messages").set(auth(ada)).expect(403);
  const page = await request(http).get(`/comms/messages?channel=mail&recipients=${encodeURIComponent(to)}&limit=1`).set(auth(admin)).expect(200);
  t.is(page.body.total, 2);
  t.true(page.body.more);
  t.is(page.body.data[0].id, second.messageId);
  const next = await request(http).get(`/comms/messages?channel=mail&recipients=${encodeURIComponent(to)}&limit=1&page=2`).set(auth(admin)).expect(200);
  t.is(next.body.data[0].id, first.messageId);
  const since = new Date(Date.now() - 60_000).toISOString();
  const ranged = await request(http).get(`/comms/messages?status=sent&created[$gte]=${since}&recipients=${encodeURIComponent(to)}`).set(auth(admin)).expect(200);
  t.is(ranged.body.total, 2);
  await request(http).get("/comms/messages?status[$where]=1").set(auth(admin)).expect(400);
  await request(http).get("/comms/messages?payload=x").set(auth(admin)).expect(400);
});

test("in production, registering a token without a push provider is 501", async (t) => {
  const built = await authTestApp(t, {}, { NODE_ENV: "production" }, (app) => app.register(commsPlugin({})));
  const email = uniqueEmail();
  const signedUp = await request(built.http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  const response = await request(built.http).post("/comms/pushTokens").set({ Authorization: `Bearer ${signedUp.body.data.token}` }).send({ token: deviceToken(), kind: "expo" }).expect(501);
  t.is(errorCode(response), CommsErrors.CHANNEL_NOT_CONFIGURED.code);
  t.is(response.body.errors[0].title, "Comms channel not configured");
});
