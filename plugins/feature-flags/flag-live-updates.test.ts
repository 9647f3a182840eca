import test from "ava";
import mongoose from "mongoose";
import { io as connect, type Socket } from "socket.io-client";
import request from "supertest";
import { SOCKET_SERVER, type SocketRefusal } from "../../contracts/socket-server.js";
import { stopTestDatabase } from "../../hosts/testing.js";
import { authTestApp, TestUser, uniqueEmail } from "../../test/support/auth-test-app.js";
import { killChangeStreamCursors } from "../../test/support/kill-change-stream-cursors.js";
import { featureFlagsPlugin } from "./feature-flags-plugin.js";
import { featureFlagModel } from "./feature-flag-model.js";
import { FLAG_CACHE, FlagCache } from "./flag-cache.js";

// Change detection through the flags' change stream (the default), live updates over the app's
// socket server, and recovery when the server kills the stream's cursor. One app for the file;
// tests use their own flag keys.

const PASSWORD = "correct horse battery staple";

let stopApp: (() => Promise<void> | void) | undefined;
const shared = (async () => {
  const built = await authTestApp(
    { teardown: (fn) => void (stopApp = fn) },
    {},
    {},
    (app) => app.register(featureFlagsPlugin({ openFeatureDomain: "flag-live-updates-test", liveUpdates: true })),
    { port: 0, host: "127.0.0.1" },
  );
  const running = await built.app.start();
  const container = built.app.kernel.container;
  return { ...built, socketUrl: running.socketUrl!, io: container.resolve(SOCKET_SERVER), cache: container.resolve(FLAG_CACHE) };
})();

const sockets: Socket[] = [];
test.after.always(async () => {
  for (const socket of sockets) socket.disconnect();
  await stopApp?.();
  await stopTestDatabase();
});

async function signup(admin = false) {
  const { http } = await shared;
  const email = uniqueEmail(admin ? "admin" : "user");
  const response = await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  if (admin) await TestUser.updateOne({ email }, { admin: true });
  return response.body.data.token as string;
}

let keyCounter = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++keyCounter}`;

async function open(token?: string): Promise<Socket> {
  const { socketUrl } = await shared;
  const socket = connect(socketUrl, { transports: ["websocket"], auth: token ? { token } : {}, reconnection: false });
  sockets.push(socket);
  return socket;
}

/** A connected socket.io client that records every event it receives. */
async function client(token?: string): Promise<{ socket: Socket; events: Array<[string, unknown]>; next: (name: string, where?: (payload: unknown) => boolean) => Promise<unknown> }> {
  const socket = await open(token);
  const events: Array<[string, unknown]> = [];
  const waiters: Array<{ name: string; where: (payload: unknown) => boolean; resolve: (payload: unknown) => void }> = [];
  socket.onAny((name: string, payload: unknown) => {
    events.push([name, payload]);
    for (const waiter of [...waiters]) {
      if (waiter.name === name && waiter.where(payload)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(payload);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  const next = (name: string, where: (payload: unknown) => boolean = () => true) => {
    const seen = events.find(([event, payload]) => event === name && where(payload));
    return seen ? Promise.resolve(seen[1]) : new Promise<unknown>((resolve) => waiters.push({ name, where, resolve }));
  };
  return { socket, events, next };
}

const isKey = (key: string) => (payload: unknown) => (payload as { key?: string }).key === key;

test.serial("a flag change reaches authenticated sockets and not anonymous ones", async (t) => {
  const { http, io } = await shared;
  const admin = await signup(true);
  const member = await client(await signup());
  const anonymous = await client();
  await member.next("featureFlagsSubscribed");

  const key = uniqueKey("live");
  await request(http).post("/feature-flags/flags").set("Authorization", `Bearer ${admin}`).send({ key, name: "Live", type: "boolean", enabled: true }).expect(201);
  t.deepEqual(await member.next("featureFlagsChanged", isKey(key)), { key });

  // Per-socket delivery is ordered: once the anonymous socket sees a marker sent after the flag
  // event, it would already have seen the flag event too, had it been sent to it.
  io.emit("marker");
  await anonymous.next("marker");
  t.deepEqual(anonymous.events.filter(([name]) => name === "featureFlagsChanged"), []);
});

test.serial("a socket with a bad token is refused with the app's error shape, and never hears of flag changes", async (t) => {
  const { http } = await shared;
  const admin = await signup(true);
  const forged = await open("not-a-real-token");
  const forgedEvents: string[] = [];
  forged.onAny((name: string) => void forgedEvents.push(name));
  const refusal = await new Promise<Error & { data?: SocketRefusal }>((resolve) => forged.once("connect_error", resolve));
  t.is(refusal.data?.errors[0]?.status, "401");
  t.is(refusal.data?.errors[0]?.code, "AUTH_TOKEN_INVALID");

  const key = uniqueKey("forged");
  const member = await client(await signup());
  await member.next("featureFlagsSubscribed");
  await request(http).post("/feature-flags/flags").set("Authorization", `Bearer ${admin}`).send({ key, name: "F", type: "boolean", enabled: true }).expect(201);
  await member.next("featureFlagsChanged", isKey(key));
  t.false(forged.connected);
  t.deepEqual(forgedEvents, []);
});

test.serial("sockets never hear of a flag that was never active (a draft or an archived flag); once active, of every change", async (t) => {
  const { http } = await shared;
  const admin = `Bearer ${await signup(true)}`;
  const member = await client(await signup());
  await member.next("featureFlagsSubscribed");
  const draft = uniqueKey("draft");
  const archived = uniqueKey("archived");
  const created = await request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key: draft, name: "Secret launch", type: "boolean" }).expect(201);
  const id = created.body.data.id;
  await request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key: archived, name: "Old", type: "boolean", enabled: true, archived: true }).expect(201);
  await request(http).patch(`/feature-flags/flags/${id}`).set("Authorization", admin).send({ name: "Secret launch, renamed" }).expect(200);
  // Changes arrive in order: once a later flag's event is in, the earlier ones would be too.
  const marker = uniqueKey("marker");
  await request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key: marker, name: "Marker", type: "boolean", enabled: true }).expect(201);
  await member.next("featureFlagsChanged", isKey(marker));
  const heard = () => member.events.filter(([name]) => name === "featureFlagsChanged").map(([, payload]) => (payload as { key: string }).key);
  t.deepEqual(heard().filter((key) => key === draft || key === archived), []);

  await request(http).patch(`/feature-flags/flags/${id}`).set("Authorization", admin).send({ enabled: true }).expect(200);
  await member.next("featureFlagsChanged", isKey(draft));
  await request(http).patch(`/feature-flags/flags/${id}`).set("Authorization", admin).send({ enabled: false }).expect(200);
  const timesHeard = () => heard().filter((key) => key === draft).length;
  for (let attempt = 0; attempt < 500 && timesHeard() < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  t.is(timesHeard(), 2, "enabling and then disabling it are both announced");
});

test.serial("a flag active at some time stores when (publishedAt), so a process that never saw it active announces its changes too; a draft stays unannounced", async (t) => {
  const { http } = await shared;
  const admin = `Bearer ${await signup(true)}`;
  const member = await client(await signup());
  await member.next("featureFlagsSubscribed");
  // What another process (or this one before a restart) left: flags disabled by now, one of them
  // active once. Written straight to the collection, so this process never saw either active.
  const draft = uniqueKey("never-published");
  const once = uniqueKey("published-once");
  const stored = (key: string, publishedAt?: Date) => ({ key, name: key, type: "boolean", enabled: false, archived: false, rolloutPercentage: 100, rules: [], variants: [], deleted: false, ...(publishedAt ? { publishedAt } : {}) });
  await featureFlagModel().collection.insertOne(stored(draft));
  await featureFlagModel().collection.insertOne(stored(once, new Date()));
  await member.next("featureFlagsChanged", isKey(once));
  // Changes arrive in order: the draft's came first, and was not announced.
  t.false(member.events.some(([name, payload]) => name === "featureFlagsChanged" && (payload as { key: string }).key === draft));

  // The server sets it when a flag is first active, and never takes it from a client.
  const created = await request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key: uniqueKey("stamped"), name: "Stamped", type: "boolean" }).expect(201);
  t.is(created.body.data.publishedAt, undefined);
  const enabled = await request(http).patch(`/feature-flags/flags/${created.body.data.id}`).set("Authorization", admin).send({ enabled: true }).expect(200);
  t.truthy(Date.parse(enabled.body.data.publishedAt));
  const refused = await request(http).patch(`/feature-flags/flags/${created.body.data.id}`).set("Authorization", admin).send({ publishedAt: new Date(0).toISOString() }).expect(400);
  t.is(refused.body.errors[0].code, "VALIDATION_READ_ONLY_FIELD");
});

test.serial("the cache follows the change stream: updates and deletes show up without polling", async (t) => {
  const { http, cache } = await shared;
  const admin = await signup(true);
  const user = await signup();
  const watcher = await client(await signup());
  await watcher.next("featureFlagsSubscribed");
  t.is(cache.mode, "stream");

  const key = uniqueKey("follow");
  const created = await request(http).post("/feature-flags/flags").set("Authorization", `Bearer ${admin}`).send({ key, name: "Follow", type: "boolean", enabled: true }).expect(201);
  await watcher.next("featureFlagsChanged", isKey(key));
  const configuration = async () => (await request(http).get("/feature-flags/flagConfiguration").set("Authorization", `Bearer ${user}`).expect(200)).body.data;
  t.is((await configuration())[key]?.defaultVariant, "on");

  const id = created.body.data.id ?? created.body.data._id;
  const changed = watcher.events.length;
  await request(http).patch(`/feature-flags/flags/${id}`).set("Authorization", `Bearer ${admin}`).send({ enabled: false }).expect(200);
  await watcher.next("featureFlagsChanged", (payload) => isKey(key)(payload) && watcher.events.length > changed);
  t.false(key in (await configuration()), "disabled flags leave the configuration");

  await request(http).delete(`/feature-flags/flags/${id}`).set("Authorization", `Bearer ${admin}`).expect(204);
  await t.notThrowsAsync(() => watcher.next("featureFlagsChanged", isKey(key)));
  t.is(cache.get(key), undefined);
});

test.serial("when the engine kills the change stream's cursor, the cache recovers and loses no change", async (t) => {
  const { http, cache } = await shared;
  const admin = await signup(true);
  const watcher = await client(await signup());
  await watcher.next("featureFlagsSubscribed");
  const ns = `${mongoose.connection.name}.${featureFlagModel().collection.collectionName}`;
  const killed = await killChangeStreamCursors(mongoose.connection.getClient(), ns);
  t.true(killed >= 1, "the flag cache's change stream cursor was found and killed");

  const key = uniqueKey("after-kill");
  await request(http).post("/feature-flags/flags").set("Authorization", `Bearer ${admin}`).send({ key, name: "After kill", type: "boolean", enabled: true }).expect(201);
  t.deepEqual(await watcher.next("featureFlagsChanged", isKey(key)), { key });
  t.truthy(cache.get(key));
  t.is(cache.mode, "stream");

  // And it keeps following: a second kill, a second change.
  await killChangeStreamCursors(mongoose.connection.getClient(), ns);
  const second = uniqueKey("second-kill");
  await request(http).post("/feature-flags/flags").set("Authorization", `Bearer ${admin}`).send({ key: second, name: "Again", type: "boolean", enabled: true }).expect(201);
  t.deepEqual(await watcher.next("featureFlagsChanged", isKey(second)), { key: second });
});

test.serial("a change stream that fails outright is reopened from its resume token, and nothing made meanwhile is lost", async (t) => {
  await shared;
  const logged: string[] = [];
  const logger = { debug() {}, info: (m: string) => void logged.push(m), warn: (m: string) => void logged.push(m), error: (m: string) => void logged.push(m) };
  const changes: string[] = [];
  const cache = new FlagCache({ model: featureFlagModel(), logger, retryDelayMs: 5, onChange: (keys) => void changes.push(...keys) });
  await cache.start();
  t.teardown(() => cache.stop());

  // What a real server's CursorKilled (237) does to the driver: the stream errors and closes.
  await (cache as unknown as { stream: { close(): Promise<void> } }).stream.close();
  const key = uniqueKey("reopened");
  await featureFlagModel().create({ key, name: "Made while broken", type: "boolean", enabled: true });

  for (let attempt = 0; attempt < 1000 && !cache.get(key); attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  t.truthy(cache.get(key), "the flag created while the stream was broken is in the cache");
  t.true(changes.includes(key));
  t.true(logged.some((line) => /change stream failed, reopening/.test(line)));
  t.true(logged.some((line) => /change stream reopened/.test(line)));
  t.is(cache.mode, "stream");
});
