import { createHook } from "node:async_hooks";
import test, { type ExecutionContext } from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { SOCKET_SERVER, type SocketServer } from "../../contracts/socket-server.js";
import { startTestDatabase, stopTestDatabase, withFailPoint } from "../../hosts/testing.js";
import { authTestApp, TestUser, uniqueEmail } from "../../test/support/auth-test-app.js";
import { recordingSocket, type RecordingSocket } from "../../test/support/recording-socket.js";
import { isDeletedPlugin, modelRouter, Permissions } from "../rest/index.js";
import { realtimeApp, syncApp, syncPlugin, type MutationOutcome, type RealtimeAppOptions, type SyncDelta } from "./index.js";

// The realtime server over a long life: hundreds of sockets come and go, and afterwards nothing
// of them is left on the server (rooms, sessions, timers, listeners); a user deleted under many
// sockets loses all of them. One app for the file, with a probe plugin that hands the test the
// app's socket.io server.

const PASSWORD = "correct horse battery staple";

const ChurnNote =
  (mongoose.models.ChurnNote as mongoose.Model<Record<string, unknown>> | undefined) ??
  mongoose.model<Record<string, unknown>>(
    "ChurnNote",
    (() => {
      const schema = new Schema({ _id: { type: String, description: "Client id" }, text: { type: String, required: true, description: "Text" }, ownerId: { type: String, description: "Owner" } }, { strict: "throw" });
      schema.plugin(isDeletedPlugin);
      schema.plugin(syncPlugin);
      return schema;
    })(),
  );
const COLLECTION = ChurnNote.collection.collectionName;
/** Tenant-scoped: its streams come from `getUserScopes`, which an app may well read from its database. */
const ChurnTeamNote =
  (mongoose.models.ChurnTeamNote as mongoose.Model<Record<string, unknown>> | undefined) ??
  mongoose.model<Record<string, unknown>>(
    "ChurnTeamNote",
    (() => {
      const schema = new Schema({ _id: { type: String, description: "Client id" }, text: { type: String, required: true, description: "Text" }, teamId: { type: String, required: true, description: "Tenant" } }, { strict: "throw" });
      schema.plugin(isDeletedPlugin);
      schema.plugin(syncPlugin);
      return schema;
    })(),
  );
/** Where `ownApp`'s getUserScopes reads a user's teams. */
const MEMBERSHIPS = "churn_memberships";

/**
 * Timers created by the sync plugin's server code that are still pending: a Timeout counts from
 * its creation until it fires (setTimeout) or is cleared (both emit `destroy`).
 */
function syncTimerTracker() {
  const live = new Map<number, string>();
  const hook = createHook({
    init(id, type) {
      if (type !== "Timeout") return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 30;
      const stack = new Error().stack ?? "";
      Error.stackTraceLimit = limit;
      // The first frame outside Node's internals is the code that asked for the timer.
      const caller = stack.split("\n").find((line) => /\/work\/|file:\/\//.test(line) && !line.includes("node:") && !line.includes("realtime-churn.test"));
      if (caller && /plugins\/sync\/(?!client\/|react\/)[\w-]+(?<!\.test)\.ts/.test(caller)) live.set(id, caller.trim());
    },
    destroy(id) {
      live.delete(id);
    },
  });
  /** The pending ones, counted per creating line. */
  const describe = () => {
    const counts = new Map<string, number>();
    for (const caller of live.values()) counts.set(caller, (counts.get(caller) ?? 0) + 1);
    return [...counts].map(([caller, count]) => `${count}× ${caller}`).join("; ");
  };
  return { live, describe, enable: () => hook.enable(), disable: () => hook.disable() };
}

let io: SocketServer | undefined;
let stopApp: (() => Promise<void> | void) | undefined;
const shared = (async () => {
  const { app, http, logs } = await authTestApp(
    { teardown: (fn) => void (stopApp = fn) },
    {},
    {},
    (app) => {
      const signedIn = [Permissions.IsAuthenticated];
      app
        .register(modelRouter("/churn-notes", ChurnNote, { permissions: { list: signedIn, read: [Permissions.IsOwner], create: signedIn, update: [Permissions.IsOwner], delete: [Permissions.IsOwner] }, sync: { scope: { type: "owner" } } }))
        .register(syncApp())
        .register(realtimeApp({ authCheckIntervalMs: 200, retryDelayMs: 20 }))
        .register({ name: "churn-probe", dependsOn: ["sync-realtime"], start: (ctx) => void (io = ctx.resolve(SOCKET_SERVER)) });
    },
    { port: 0, host: "127.0.0.1" },
  );
  const running = await app.start();
  return { http, logs, socketUrl: running.socketUrl! };
})();
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

const warnings: Error[] = [];
process.on("warning", (warning) => void warnings.push(warning));

let counter = 0;
const uid = (label: string) => `${label}-${process.pid}-${++counter}`;

async function signup() {
  const { http } = await shared;
  const response = await request(http).post("/auth/signup").send({ email: uniqueEmail("churn"), password: PASSWORD }).expect(201);
  return { token: response.body.data.token as string, id: response.body.data.userId as string };
}

async function until(condition: () => boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 2000 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  return condition();
}

const note = (id = uid("note")) => ({ mutationId: uid("m"), collection: COLLECTION, operation: "create", id, data: { text: "churn" } });

test.serial("300 connect → subscribe → mutate → disconnect cycles leave nothing of the gone sockets on the server", async (t) => {
  const { socketUrl } = await shared;
  const users = await Promise.all(Array.from({ length: 5 }, () => signup()));
  const timers = syncTimerTracker();
  timers.enable();
  t.teardown(() => timers.disable());
  const namespace = io!.of("/");
  const connectionListeners = namespace.listenerCount("connection");
  const closers: Array<() => void> = [];
  t.teardown(() => closers.forEach((close) => close()));

  let cycle = 0;
  let cycles = 0;
  const worker = async () => {
    while (cycle < cycles) {
      const index = cycle++;
      const user = users[index % users.length]!;
      const client: RecordingSocket = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => void closers.push(fn) });
      await client.request("sync:subscribe", { collections: [COLLECTION] });
      const mutation = note();
      const outcome = await client.request<MutationOutcome>("sync:mutate", mutation);
      if (!("ack" in outcome)) throw new Error(`cycle ${index}: ${JSON.stringify(outcome)}`);
      await client.next<SyncDelta>("sync:delta", (delta) => delta.id === mutation.id);
      // Some leave tidily, some go with a mutation in flight, some just drop.
      if (index % 3 === 0) await client.request("sync:unsubscribe", { collections: [COLLECTION] });
      if (index % 3 === 1) client.emit("sync:mutate", note());
      client.socket.disconnect();
    }
  };
  const churn = async (count: number) => {
    cycles += count;
    await Promise.all(Array.from({ length: 10 }, worker));
    t.true(await until(() => namespace.sockets.size === 0), "every socket is gone from the namespace");
  };
  /** Node's active handles by kind (sockets, servers, timers that keep the process alive). */
  const handles = () => process.getActiveResourcesInfo().reduce<Record<string, number>>((counts, kind) => ({ ...counts, [kind]: (counts[kind] ?? 0) + 1 }), {});
  // A first round grows the database connection pool to what 10 concurrent clients need.
  await churn(20);
  const baseline = handles();
  await churn(300);

  t.true(await until(() => timers.live.size === 0), `sync timers still pending: ${timers.describe()}`);
  // Back to the baseline, give or take a few: a timer in flight, or the driver's pool grown by a
  // connection or two when a loaded machine lets more operations overlap (each is two TCP handles
  // on the in-process engine, client and server side). A leak would be one per socket: 300.
  for (const [kind, count] of Object.entries(handles())) t.true(count <= (baseline[kind] ?? 0) + 10, `${kind}: ${count} active after the churn, ${baseline[kind] ?? 0} before`);
  t.is(namespace.adapter.rooms.size, 0, "no stream room (or socket room) is left");
  t.is(namespace.adapter.sids.size, 0);
  t.is(namespace.listenerCount("connection"), connectionListeners);
  t.deepEqual(
    warnings.map((warning) => warning.name),
    [],
  );
  // Every write of the churn was applied once: 300 acked creates, plus the ones sent on the way out.
  t.true((await ChurnNote.countDocuments({ ownerId: { $in: users.map((user) => user.id) } })) >= 300);
});

test.serial("a user deleted while 10 of their sockets are connected: every one gets sync:auth-expired (disabled) and is let go", async (t) => {
  const { socketUrl } = await shared;
  const [doomed, other] = [await signup(), await signup()];
  const timers = syncTimerTracker();
  timers.enable();
  t.teardown(() => timers.disable());
  const clients = await Promise.all(Array.from({ length: 10 }, () => recordingSocket(socketUrl, { token: doomed.token, teardown: (fn) => t.teardown(fn) })));
  for (const client of clients) await client.request("sync:subscribe", { collections: [COLLECTION] });
  const bystander = await recordingSocket(socketUrl, { token: other.token, teardown: (fn) => t.teardown(fn) });
  await bystander.request("sync:subscribe", { collections: [COLLECTION] });

  await TestUser.deleteOne({ _id: doomed.id });
  // The periodic check (200 ms in this app) finds it on each socket, with no event from the client.
  for (const client of clients) {
    t.deepEqual(await client.next("sync:auth-expired"), { reason: "disabled" });
    t.is(await client.disconnected, "io server disconnect");
  }
  // The bystander is still served, and their socket is the only one left.
  const mine = note();
  t.true("ack" in (await bystander.request<MutationOutcome>("sync:mutate", mine)));
  await bystander.next("sync:delta", (delta: SyncDelta) => delta.id === mine.id);
  t.is(io!.of("/").sockets.size, 1);
  t.is(io!.of("/").adapter.rooms.get(`sync:${COLLECTION}|owner:${doomed.id}`), undefined);
  bystander.socket.disconnect();
  t.true(await until(() => timers.live.size === 0), `sync timers still pending: ${timers.describe()}`);
});

test.serial("one device signed out from another: that sign-in's sockets get sync:auth-expired (expired), the other device's are still served", async (t) => {
  const { http, socketUrl } = await shared;
  const email = uniqueEmail("churn");
  const first = (await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201)).body.data as { token: string; userId: string };
  const second = (await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(200)).body.data as { token: string };
  const kept = await recordingSocket(socketUrl, { token: first.token, teardown: (fn) => t.teardown(fn) });
  const ended = await recordingSocket(socketUrl, { token: second.token, teardown: (fn) => t.teardown(fn) });
  for (const client of [kept, ended]) await client.request("sync:subscribe", { collections: [COLLECTION] });

  const signIns = (await request(http).get("/auth/sign_ins").set("authorization", `Bearer ${first.token}`).expect(200)).body.data as Array<{ id: string; current: boolean }>;
  const other = signIns.find((signIn) => !signIn.current)!;
  await request(http).delete(`/auth/sign_ins/${other.id}`).set("authorization", `Bearer ${first.token}`).expect(204);
  // The periodic check (200 ms in this app) finds it, with no event from the client.
  t.deepEqual(await ended.next("sync:auth-expired"), { reason: "expired" });
  t.is(await ended.disconnected, "io server disconnect");

  const mine = note();
  t.true("ack" in (await kept.request<MutationOutcome>("sync:mutate", mine)));
  await kept.next("sync:delta", (delta: SyncDelta) => delta.id === mine.id);
  t.false(kept.events.some(([name]) => name === "sync:auth-expired"));
});

/** The database's change-stream cursor of this app (a database-level stream). */
const streamNamespace = () => `${ChurnNote.db.name}.$cmd.aggregate`;

/**
 * A `failCommand` on the stream's getMore that the driver resumes from, on any server: mongod
 * evaluates failCommand before it checks the cursor out, so it labels no getMore error
 * `ResumableChangeStreamError` (a getMore that really fails with `code` is labelled), and the
 * driver resumes an unlabelled error only when it is CursorNotFound (43).
 */
const resumableGetMoreFailure = (errorCode: number) => ({ failCommands: ["getMore"], errorCode, errorLabels: ["ResumableChangeStreamError"], namespace: streamNamespace() });

/** Creates `count` notes over HTTP as `user` and returns their ids, in write order. */
async function writeNotes(user: { token: string }, count: number, label: string): Promise<string[]> {
  const { http } = await shared;
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const mutation = note(uid(label));
    await request(http).post("/sync/mutate").set("Authorization", `Bearer ${user.token}`).send(mutation).expect(200);
    ids.push(mutation.id);
  }
  return ids;
}

test.serial("the stream's getMore fails twice with a transient error (HostUnreachable), its cursor is lost (CursorNotFound), a getMore fails for good: every delta arrives once, in seq order with no seq skipped, no reconcile, one warning", async (t) => {
  const { socketUrl, logs } = await shared;
  const { uri } = await startTestDatabase();
  const user = await signup();
  const client = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  await client.request("sync:subscribe", { collections: [COLLECTION] });
  logs.clear();
  const ids = await writeNotes(user, 3, "before");
  await client.next("sync:delta", (delta: SyncDelta) => delta.id === ids[2]);
  await withFailPoint(uri, { mode: { times: 2 }, data: resumableGetMoreFailure(6) }, async () => {
    ids.push(...(await writeNotes(user, 3, "transient")));
    await client.next("sync:delta", (delta: SyncDelta) => delta.id === ids[5]);
  });
  // Not killChangeStreamCursors: mongod interrupts a getMore waiting on a killed cursor with
  // CursorKilled (237), which no driver resumes from; the embedded engine answers 43. A cursor the
  // server no longer knows is 43 on both.
  await withFailPoint(uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 43, namespace: streamNamespace() } }, async () => {
    ids.push(...(await writeNotes(user, 3, "lost")));
    await client.next("sync:delta", (delta: SyncDelta) => delta.id === ids[8]);
  });
  t.deepEqual(logs.lines.filter((line) => (line.level === "warn" || line.level === "error") && /^Sync/.test(line.message)).map((line) => line.message), [], "the driver resumed both by itself");
  // A getMore that fails for good: the feed reopens from its own resume token.
  await withFailPoint(uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 2, namespace: streamNamespace() } }, async () => {
    ids.push(...(await writeNotes(user, 3, "reopened")));
    await client.next("sync:delta", (delta: SyncDelta) => delta.id === ids[11]);
  });
  ids.push(...(await writeNotes(user, 1, "after")));
  await client.next("sync:delta", (delta: SyncDelta) => delta.id === ids[12]);

  const deltas = client.events.filter(([name]) => name === "sync:delta").map(([, delta]) => delta as SyncDelta);
  t.deepEqual(
    deltas.map((delta) => delta.id),
    ids,
  );
  t.deepEqual(
    deltas.map((delta) => delta.seq),
    ids.map((_, index) => index + 1),
  );
  t.false(client.events.some(([name]) => name === "sync:reconcile"));
  const told = logs.lines.filter((line) => line.level !== "debug" && /^Sync/.test(line.message));
  t.deepEqual(
    told.map((line) => [line.level, line.message.split(";")[0]]),
    [
      ["warn", "Sync: change stream failed, reopening"],
      ["info", "Sync: change stream reopened"],
    ],
  );
  t.like(told[1], { resumed: true, failedAttempts: 1 });
});

test.serial("the resume token is too old (history lost): subscribed sockets get one sync:reconcile, deltas go on, and the incident is logged once", async (t) => {
  const { socketUrl, logs } = await shared;
  const { uri } = await startTestDatabase();
  const user = await signup();
  const subscribed = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  await subscribed.request("sync:subscribe", { collections: [COLLECTION] });
  const idle = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  const [first] = await writeNotes(user, 1, "before");
  await subscribed.next("sync:delta", (delta: SyncDelta) => delta.id === first);
  logs.clear();
  // The stream is told its position is older than the history, as a server whose oplog rolled
  // over answers. On its getMore, not on the resuming aggregate: a failCommand's `namespace` names
  // a database-level aggregate `<db>.$cmd.aggregate` on mongod and `<db>.$cmd` on the embedded
  // engine, so no namespace narrows that aggregate on both (and an unnarrowed point on a shared
  // server fails other test processes' aggregates).
  await withFailPoint(uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 286, namespace: streamNamespace() } }, async () => {
    t.deepEqual(await subscribed.next("sync:reconcile"), { reason: "history-lost" });
  });
  const [after] = await writeNotes(user, 1, "after");
  await subscribed.next("sync:delta", (delta: SyncDelta) => delta.id === after);
  t.is(subscribed.events.filter(([name]) => name === "sync:reconcile").length, 1);
  t.false(idle.events.some(([name]) => name === "sync:reconcile"), "a socket with no subscription has nothing to reconcile");
  // One warning that the stream failed, one that clients were told to reconcile.
  const loud = logs.lines.filter((line) => (line.level === "warn" || line.level === "error") && /^Sync/.test(line.message)).map((line) => line.message);
  t.is(loud.length, 2, loud.join(" | "));
  t.true(loud.some((message) => /reconcile/.test(message)));
});

test.serial("a synced collection that lost its post-images (re-created, or turned off): subscribers are told to reconcile and deltas flow again", async (t) => {
  const { socketUrl, http, logs } = await shared;
  const user = await signup();
  const client = await recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) });
  await client.request("sync:subscribe", { collections: [COLLECTION] });
  const [id] = await writeNotes(user, 1, "imaged");
  const created = await client.next<SyncDelta>("sync:delta", (delta) => delta.id === id);
  logs.clear();
  await ChurnNote.db.db!.command({ collMod: COLLECTION, changeStreamPreAndPostImages: { enabled: false } });
  const update = (text: string, baseVersion: number) =>
    request(http).post("/sync/mutate").set("Authorization", `Bearer ${user.token}`).send({ mutationId: uid("m"), collection: COLLECTION, operation: "update", id, data: { text }, baseVersion }).expect(200);
  const blind = await update("no post-image", created.seq);
  t.deepEqual(await client.next("sync:reconcile"), { reason: "invalidated" });
  await update("seen again", blind.body.ack.seq as number);
  t.like(await client.next<SyncDelta>("sync:delta", (delta) => delta.id === id && delta.seq > created.seq), { method: "update", data: { text: "seen again" } });
  t.true(logs.lines.some((line) => line.level === "warn" && /reconcile/.test(line.message)));
});

test.serial("the users collection unreadable while 10 sockets are checked every 200 ms: they stay connected and served, and the outage is one warning and one line when checks pass again", async (t) => {
  const { socketUrl, logs } = await shared;
  const { uri } = await startTestDatabase();
  const users = await Promise.all(Array.from({ length: 10 }, () => signup()));
  const clients = await Promise.all(users.map((user) => recordingSocket(socketUrl, { token: user.token, teardown: (fn) => t.teardown(fn) })));
  for (const client of clients) await client.request("sync:subscribe", { collections: [COLLECTION] });
  logs.clear();
  const checkLines = () => logs.lines.filter((line) => /credential/.test(line.message));
  await withFailPoint(uri, { mode: "alwaysOn", data: { failCommands: ["find"], errorCode: 2, namespace: `${TestUser.db.name}.${TestUser.collection.collectionName}` } }, async () => {
    // Several rounds of every socket's periodic check fail.
    t.true(await until(() => checkLines().length >= 40));
  });
  const mutation = note();
  t.true("ack" in (await clients[0]!.request<MutationOutcome>("sync:mutate", mutation)));
  await clients[0]!.next("sync:delta", (delta: SyncDelta) => delta.id === mutation.id);
  t.true(await until(() => checkLines().some((line) => line.level === "info")));
  const loud = checkLines().filter((line) => line.level !== "debug");
  t.deepEqual(
    loud.map((line) => line.level),
    ["warn", "info"],
    loud.map((line) => line.message).join(" | "),
  );
  t.false(clients.some((client) => client.events.some(([name]) => name === "sync:auth-expired")), "a database that cannot answer is not an expired credential");
  t.is(io!.of("/").sockets.size, 10);
});

/**
 * A second app on the same database, for a test that needs other settings; stopped with the test.
 * It also serves team notes, whose streams come from a user's documents in `churn_memberships`.
 */
async function ownApp(t: ExecutionContext, env: Record<string, string>, realtime: RealtimeAppOptions) {
  let stop: (() => Promise<void> | void) | undefined;
  const { app, http, logs } = await authTestApp(
    { teardown: (fn) => void (stop = fn) },
    {},
    env,
    (app) => {
      const signedIn = [Permissions.IsAuthenticated];
      app
        .register(modelRouter("/churn-notes", ChurnNote, { permissions: { list: signedIn, read: [Permissions.IsOwner], create: signedIn, update: [Permissions.IsOwner], delete: [Permissions.IsOwner] }, sync: { scope: { type: "owner" } } }))
        .register(modelRouter("/churn-team-notes", ChurnTeamNote, { permissions: { list: signedIn, read: signedIn, create: signedIn, update: signedIn, delete: signedIn }, sync: { scope: { type: "tenant", field: "teamId" } } }))
        .register(
          syncApp({
            getUserScopes: async (user) => {
              const memberships = await ChurnNote.db.collection(MEMBERSHIPS).find({ userId: user.id }).toArray();
              return memberships.map((membership) => `tenant:${String(membership.teamId)}`);
            },
          }),
        )
        .register(realtimeApp(realtime));
    },
    { port: 0, host: "127.0.0.1" },
  );
  t.teardown(() => stop?.());
  const { socketUrl } = await app.start();
  return { app, http, logs, socketUrl: socketUrl! };
}

test.serial("tokens expiring under 5 sockets of one user: each gets sync:auth-expired, reconnects with a fresh token and is served again; a stop leaves no sync timer", async (t) => {
  const timers = syncTimerTracker();
  timers.enable();
  t.teardown(() => timers.disable());
  // An app of its own, whose access tokens last 2 s.
  const { app, http, socketUrl } = await ownApp(t, { TOKEN_EXPIRES_IN: "2s" }, { authCheckIntervalMs: 60_000 });
  const email = uniqueEmail("expiring");
  const signedUp = await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  const userId = signedUp.body.data.userId as string;
  const clients = await Promise.all(Array.from({ length: 5 }, () => recordingSocket(socketUrl, { token: signedUp.body.data.token as string, teardown: (fn) => t.teardown(fn) })));
  for (const client of clients) await client.request("sync:subscribe", { collections: [COLLECTION] });

  // The expiry timer of each socket fires at the token's exp, with no event from the client.
  for (const client of clients) {
    t.deepEqual(await client.next("sync:auth-expired"), { reason: "expired" });
    t.is(await client.disconnected, "io server disconnect");
  }
  const fresh = await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(200);
  for (const client of clients) {
    client.socket.auth = { token: fresh.body.data.token as string };
    const reconnected = new Promise((resolve) => client.socket.once("connect", () => resolve(undefined)));
    client.socket.connect();
    await reconnected;
    t.like((await client.request<unknown[]>("sync:subscribe", { collections: [COLLECTION] }))[0], { streams: [`${COLLECTION}|owner:${userId}`] });
  }
  const mutation = note();
  t.true("ack" in (await clients[0]!.request<MutationOutcome>("sync:mutate", mutation)));
  for (const client of clients) await client.next("sync:delta", (delta: SyncDelta) => delta.id === mutation.id);
  // Each socket heard the write once: the sessions of the expired connections are gone.
  for (const client of clients) t.is(client.events.filter(([name, payload]) => name === "sync:delta" && (payload as SyncDelta).id === mutation.id).length, 1);

  // Stopped with the five sockets connected: no check or expiry timer of theirs is left.
  await app.stop();
  t.true(await until(() => timers.live.size === 0), `sync timers still pending: ${timers.describe()}`);
});

test.serial("credential checks slower than their interval do not pile up: each socket queues at most one, and its mutations wait for no backlog", async (t) => {
  const { http, socketUrl } = await ownApp(t, {}, { authCheckIntervalMs: 50, authFreshnessMs: 60_000 });
  const { uri } = await startTestDatabase();
  const users = await Promise.all(
    Array.from({ length: 3 }, async () => {
      const response = await request(http).post("/auth/signup").send({ email: uniqueEmail("slow"), password: PASSWORD }).expect(201);
      return response.body.data.token as string;
    }),
  );
  const clients = await Promise.all(users.map((token) => recordingSocket(socketUrl, { token, teardown: (fn) => t.teardown(fn) })));
  const admin = ChurnNote.db.getClient().db("admin");
  const usersFind = (blockTimeMS: number) => ({ configureFailPoint: "failCommand", mode: "alwaysOn", data: { failCommands: ["find"], namespace: `${TestUser.db.name}.${TestUser.collection.collectionName}`, blockConnection: true, blockTimeMS } });
  t.teardown(() => admin.command({ configureFailPoint: "failCommand", mode: "off" }).then(() => undefined));
  // Every user lookup takes 300 ms while the sockets' checks come due every 50 ms.
  await admin.command(usersFind(300));
  const fired = async (blockTimeMS: number) => (await admin.command(usersFind(blockTimeMS))).count as number;
  t.true(await untilAsync(async () => (await fired(300)) >= 3 * 4), "four slow checks of each socket");
  // From here lookups are quick again, and the fail point counts them.
  const before = await fired(1);
  await Promise.all(clients.map(async (client) => t.true("ack" in (await client.request<MutationOutcome>("sync:mutate", note())))));
  const drained = (await fired(1)) - before;
  // A backlog would be a lookup per missed interval (about six per slow check) before each mutation.
  t.true(drained <= 3 * 3, `${drained} user lookups before the mutations were answered`);
});

async function untilAsync(condition: () => Promise<boolean>): Promise<boolean> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

test.serial("a mutation whose credential check cannot be made (the database away) is nacked error, to be sent again, not forbidden (which a client gives up on)", async (t) => {
  const { http, socketUrl } = await ownApp(t, {}, { authFreshnessMs: 0 });
  const { uri } = await startTestDatabase();
  const signedUp = await request(http).post("/auth/signup").send({ email: uniqueEmail("blip"), password: PASSWORD }).expect(201);
  const client = await recordingSocket(socketUrl, { token: signedUp.body.data.token as string, teardown: (fn) => t.teardown(fn) });
  const mutation = note();
  const batch = { mutations: [note(), note()] };
  await withFailPoint(uri, { mode: "alwaysOn", data: { failCommands: ["find"], errorCode: 2, namespace: `${TestUser.db.name}.${TestUser.collection.collectionName}` } }, async () => {
    t.like(await client.request<MutationOutcome>("sync:mutate", mutation), { nack: { mutationId: mutation.mutationId, code: "error" } });
    const answer = await client.request<{ results: unknown[] }>("sync:mutateBatch", batch);
    t.like(answer.results[0], { nack: { code: "error" } });
    t.deepEqual(answer.results[1], { notAttempted: { mutationId: batch.mutations[1]!.mutationId } });
  });
  // Sent again once the database answers: applied.
  t.true("ack" in (await client.request<MutationOutcome>("sync:mutate", mutation)));
  const again = await client.request<{ results: unknown[] }>("sync:mutateBatch", batch);
  t.true(again.results.every((result) => typeof result === "object" && result !== null && "ack" in result));
  t.false(client.events.some(([name]) => name === "sync:auth-expired"));
});

test.serial("a user's streams that cannot be looked up (the database away) while 5 sockets are checked every 100 ms: they stay subscribed, and the outage is one warning and one line when lookups pass again", async (t) => {
  const { http, socketUrl, logs: capture } = await ownApp(t, {}, { authCheckIntervalMs: 100 });
  const { uri } = await startTestDatabase();
  const tokens = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const response = await request(http).post("/auth/signup").send({ email: uniqueEmail("team"), password: PASSWORD }).expect(201);
      await ChurnNote.db.collection(MEMBERSHIPS).insertOne({ userId: response.body.data.userId, teamId: "red" });
      return response.body.data.token as string;
    }),
  );
  const teamNotes = ChurnTeamNote.collection.collectionName;
  const clients = await Promise.all(tokens.map((token) => recordingSocket(socketUrl, { token, teardown: (fn) => t.teardown(fn) })));
  for (const client of clients) t.like((await client.request<unknown[]>("sync:subscribe", { collections: [teamNotes] }))[0], { streams: [`${teamNotes}|tenant:red`] });
  capture.clear();
  await withFailPoint(uri, { mode: "alwaysOn", data: { failCommands: ["find"], errorCode: 2, namespace: `${ChurnNote.db.name}.${MEMBERSHIPS}` } }, async () => {
    // Several rounds of every socket's periodic check fail at the lookup.
    t.true(await until(() => capture.lines.filter((line) => /streams|socket event failed/.test(line.message)).length >= 20));
  });
  await until(() => capture.lines.some((line) => line.level === "info" && /streams/.test(line.message)));
  const lines = capture.lines.filter((line) => line.level !== "debug" && /Sync/.test(line.message));
  t.deepEqual(
    lines.map((line) => line.level),
    ["warn", "info"],
    lines.map((line) => line.message).join(" | "),
  );
  // Still subscribed: a team write reaches every socket.
  const id = uid("team-note");
  await request(http).post("/sync/mutate").set("Authorization", `Bearer ${tokens[0]!}`).send({ mutationId: uid("m"), collection: teamNotes, operation: "create", id, data: { text: "hi", teamId: "red" } }).expect(200);
  for (const client of clients) await client.next("sync:delta", (delta: SyncDelta) => delta.id === id);
  t.false(clients.some((client) => client.events.some(([name]) => name === "sync:error" || name === "sync:auth-expired")));
});

test.serial("a subscribe the server cannot answer for now (the caller's streams or credential cannot be looked up) is a 503 SYNC_UNAVAILABLE for that collection, never an unanswered acknowledgement", async (t) => {
  const { http, socketUrl } = await ownApp(t, {}, { authFreshnessMs: 0 });
  const { uri } = await startTestDatabase();
  const signedUp = await request(http).post("/auth/signup").send({ email: uniqueEmail("unavailable"), password: PASSWORD }).expect(201);
  const client = await recordingSocket(socketUrl, { token: signedUp.body.data.token as string, teardown: (fn) => t.teardown(fn), waitMs: 10_000 });
  const teamNotes = ChurnTeamNote.collection.collectionName;
  const failing = (namespace: string) => ({ mode: "alwaysOn" as const, data: { failCommands: ["find"], errorCode: 2, errorLabels: [], namespace } });

  // getUserScopes reads the memberships, which fail: the team notes are refused for now, the owner-scoped notes are subscribed.
  const answers = await withFailPoint(uri, failing(`${ChurnNote.db.name}.${MEMBERSHIPS}`), () => client.request<Array<Record<string, unknown>>>("sync:subscribe", { collections: [teamNotes, COLLECTION] }));
  t.like(answers[0], { collection: teamNotes, code: "SYNC_UNAVAILABLE", status: 503 });
  t.like(answers[1], { collection: COLLECTION, streams: [`${COLLECTION}|owner:${signedUp.body.data.userId as string}`] });
  // Once the lookup works again, subscribing again works.
  t.like((await client.request<Array<Record<string, unknown>>>("sync:subscribe", { collections: [teamNotes] }))[0], { collection: teamNotes, streams: [] });

  // The credential itself cannot be checked (the users collection fails): not a 401, a retry later.
  const refused = await withFailPoint(uri, failing(`${TestUser.db.name}.${TestUser.collection.collectionName}`), () => client.request<{ errors: Array<Record<string, unknown>> }>("sync:subscribe", { collections: [COLLECTION] }));
  t.like(refused.errors[0], { code: "SYNC_UNAVAILABLE", status: 503 });
  t.false(client.events.some(([name]) => name === "sync:auth-expired"));
});
