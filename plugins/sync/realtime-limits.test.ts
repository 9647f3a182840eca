import test from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { authTestApp, SESSION_ENV, TestUser, uniqueEmail } from "../../test/support/auth-test-app.js";
import { recordingSocket } from "../../test/support/recording-socket.js";
import { isDeletedPlugin, modelRouter, Permissions } from "../rest/index.js";
import { realtimeApp, syncApp, syncPlugin, SyncErrors, type BatchAnswer, type MutationOutcome, type SyncDelta, type SyncNack } from "./index.js";

// SPEC §8's socket limits at their defaults (50 subscriptions, 100 mutations per second), the
// router's list permission on subscribe, credential expiry, and sockets under session auth.


const PASSWORD = "correct horse battery staple";
const APP = "https://app.example.com";
const COLLECTIONS = 51;

function syncedModel(name: string, fields: Record<string, unknown>) {
  if (mongoose.models[name]) return mongoose.models[name] as mongoose.Model<Record<string, unknown>>;
  const schema = new Schema({ _id: { type: String, description: "Client id" }, ...fields }, { strict: "throw" });
  schema.plugin(isDeletedPlugin);
  schema.plugin(syncPlugin);
  return mongoose.model<Record<string, unknown>>(name, schema);
}
const boards = Array.from({ length: COLLECTIONS }, (_, index) => syncedModel(`LimitBoard${index}`, { label: { type: String, required: true, description: "Label" } }));
const Secret = syncedModel("LimitSecret", { text: { type: String, required: true, description: "Text" } });
const Memo = syncedModel("LimitMemo", { text: { type: String, required: true, description: "Text" }, ownerId: { type: String, description: "Owner" } });

const signedIn = [Permissions.IsAuthenticated];
const open = { list: signedIn, read: signedIn, create: signedIn, update: signedIn, delete: signedIn };

/** A listening app with sync and realtime at their defaults; `env` and `auth` pick the provider. */
async function limitsApp(t: Parameters<typeof authTestApp>[0], options: { env?: Record<string, string>; session?: boolean } = {}) {
  const { app, http } = await authTestApp(
    t,
    options.session ? { sessionAuth: { trustedOrigins: [APP] } } : {},
    options.env ?? {},
    (app) => {
      boards.forEach((model, index) => app.register(modelRouter(`/limit-boards-${index}`, model, { permissions: open, sync: { scope: { type: "broadcast" } } })));
      app.register(modelRouter("/limit-secrets", Secret, { permissions: { ...open, list: [Permissions.IsAdmin] }, sync: { scope: { type: "broadcast" } } }));
      app.register(modelRouter("/limit-memos", Memo, { permissions: open, sync: { scope: { type: "owner" } } }));
      app.register(syncApp()).register(realtimeApp());
    },
    { port: 0, host: "127.0.0.1" },
  );
  const running = await app.start();
  return { http, socketUrl: running.socketUrl! };
}

let stopShared: (() => Promise<void> | void) | undefined;
const shared = limitsApp({ teardown: (fn) => void (stopShared = fn) });
test.after.always(async () => {
  await stopShared?.();
  await stopTestDatabase();
});

async function jwtUser(http: Parameters<typeof request>[0]) {
  const response = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
  return { token: response.body.data.token as string, id: response.body.data.userId as string };
}

const board = (index: number) => boards[index]!.collection.collectionName;
let counter = 0;
const uid = (label: string) => `${label}-${process.pid}-${++counter}`;

test("a socket subscribes to at most 50 collections: the 51st is a sync:error until one is unsubscribed", async (t) => {
  const { http, socketUrl } = await shared;
  const user = await jwtUser(http);
  const client = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  const all = Array.from({ length: COLLECTIONS }, (_, index) => board(index));
  const answers = await client.request<Array<{ collection: string; code?: string; streams?: string[] }>>("sync:subscribe", { collections: all });
  t.is(answers.filter((answer) => answer.streams).length, 50);
  t.like(answers[50], { collection: board(50), code: SyncErrors.TOO_MANY_SUBSCRIPTIONS.code });
  t.like(await client.next("sync:error"), { collection: board(50), code: SyncErrors.TOO_MANY_SUBSCRIPTIONS.code });
  // Subscribing again to one already held is not a new subscription.
  t.like((await client.request<unknown[]>("sync:subscribe", { collections: [board(0)] }))[0], { collection: board(0), streams: [`${board(0)}|all`] });

  t.deepEqual(await client.request("sync:unsubscribe", { collections: [board(0)] }), { collections: [board(0)] });
  t.like((await client.request<unknown[]>("sync:subscribe", { collections: [board(50)] }))[0], { collection: board(50), streams: [`${board(50)}|all`] });
  // Unsubscribed means no more deltas from it: a write there, then one to a held collection.
  await request(http).post("/sync/mutate").set("Authorization", `Bearer ${user.token}`).send({ mutationId: uid("m"), collection: board(0), operation: "create", id: uid("b0"), data: { label: "x" } }).expect(200);
  const held = uid("b1");
  await request(http).post("/sync/mutate").set("Authorization", `Bearer ${user.token}`).send({ mutationId: uid("m"), collection: board(1), operation: "create", id: held, data: { label: "y" } }).expect(200);
  await client.next("sync:delta", (delta: SyncDelta) => delta.id === held);
  t.false(client.events.some(([name, payload]) => name === "sync:delta" && (payload as SyncDelta).collection === board(0)));
});

test("100 mutations per second per socket, batch entries counted: the 101st is nacked rate_limited with retryAfterMs", async (t) => {
  const { http, socketUrl } = await shared;
  const user = await jwtUser(http);
  const client = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  // 100 entries take 100 points as the batch arrives; the first is invalid, so none is applied.
  const entries = Array.from({ length: 100 }, (_, index) => ({ mutationId: uid("m"), collection: board(0), operation: "create", id: uid("e"), data: index === 0 ? { label: 7 } : { label: "ok" } }));
  client.emit("sync:mutateBatch", { mutations: entries });
  const over = { mutationId: uid("m"), collection: board(0), operation: "create", id: uid("over"), data: { label: "over" } };
  const refused = await client.request<{ nack: SyncNack }>("sync:mutate", over);
  t.like(refused.nack, { mutationId: over.mutationId, code: "rate_limited" });
  t.true(refused.nack.retryAfterMs! > 0 && refused.nack.retryAfterMs! <= 1000);
  t.is(await boards[0]!.countDocuments({ _id: { $in: [over.id, ...entries.map((entry) => entry.id)] } }), 0);
  // Within a batch: entries past the budget are nacked in order and stop it.
  const batch = await client.request<BatchAnswer>("sync:mutateBatch", { mutations: [{ ...over, mutationId: uid("m") }, { ...over, mutationId: uid("m") }] });
  t.like(batch.results[0], { nack: { code: "rate_limited" } });
  t.true("notAttempted" in batch.results[1]!);
  // After the wait it names, the socket is served again.
  await new Promise((resolve) => setTimeout(resolve, refused.nack.retryAfterMs! + 50));
  t.true("ack" in (await client.request<MutationOutcome>("sync:mutate", { ...over, mutationId: uid("m") })));
});

test("a collection whose router does not let the caller list it: sync:error on subscribe, 403 on snapshot; admins may", async (t) => {
  const { http, socketUrl } = await shared;
  const user = await jwtUser(http);
  const client = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  const secrets = Secret.collection.collectionName;
  const [answer] = await client.request<Array<{ code: string }>>("sync:subscribe", { collections: [secrets] });
  t.is(answer!.code, SyncErrors.COLLECTION_FORBIDDEN.code);
  const snapshot = await request(http).get("/sync/snapshot").query({ collection: secrets }).set("Authorization", `Bearer ${user.token}`).expect(403);
  t.is(snapshot.body.errors[0].code, SyncErrors.COLLECTION_FORBIDDEN.code);
  const streams = await request(http).get("/sync/streams").set("Authorization", `Bearer ${user.token}`).expect(200);
  t.false(streams.body.streams.some((entry: { collection: string }) => entry.collection === secrets));

  const admin = await jwtUser(http);
  await TestUser.updateOne({ _id: admin.id }, { admin: true });
  const adminSocket = await recordingSocket(socketUrl, { token: admin.token, teardown: (fn) => t.teardown(fn) });
  t.like((await adminSocket.request<unknown[]>("sync:subscribe", { collections: [secrets] }))[0], { collection: secrets, streams: [`${secrets}|all`] });
});

test("an access token that expires gets sync:auth-expired (expired) and the socket is let go", async (t) => {
  const { http, socketUrl } = await limitsApp(t, { env: { TOKEN_EXPIRES_IN: "2s" } });
  const user = await jwtUser(http);
  const client = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  await client.request("sync:subscribe", { collections: [Memo.collection.collectionName] });
  t.deepEqual(await client.next("sync:auth-expired"), { reason: "expired" });
  t.is(await client.disconnected, "io server disconnect");
});

test("under session auth a socket authenticates with the session token: subscribe, mutate, deltas", async (t) => {
  const { http, socketUrl } = await limitsApp(t, { session: true, env: { ...SESSION_ENV } });
  const signup = await request(http).post("/api/auth/signup/email").set("Origin", APP).send({ email: uniqueEmail(), password: PASSWORD, name: "Ada" }).expect(201);
  const { token, userId } = signup.body.data as { token: string; userId: string };
  const client = await recordingSocket(socketUrl, { token, teardown: (fn) => t.teardown(fn) });
  const memos = Memo.collection.collectionName;
  t.like((await client.request<unknown[]>("sync:subscribe", { collections: [memos] }))[0], { streams: [`${memos}|owner:${userId}`] });
  const id = uid("memo");
  const outcome = await client.request<MutationOutcome>("sync:mutate", { mutationId: uid("m"), collection: memos, operation: "create", id, data: { text: "hello" } });
  t.true("ack" in outcome);
  t.like(await client.next<SyncDelta>("sync:delta", (delta) => delta.id === id), { method: "create", data: { text: "hello", ownerId: userId } });
});
