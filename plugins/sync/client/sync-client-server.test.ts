import test from "ava";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { as, scopeLookup, SyncNote, SyncTodo, syncTestApp, uid, type SyncCaller } from "../../../test/support/sync-test-app.js";
import { createHttpChannel, createMemoryPersister, listConflicts, type SyncDb } from "./index.js";
import { deviceOf, queueThenStopMidDrain, type ServerUrls } from "./test-support/server-client.js";
import { eventually, settled, waitForStatus } from "./test-support/wait-for.js";

// The sync client against the real sync server, in process: real HTTP (fetch), real socket.io,
// the embedded database with change streams. One app for the file; every test has its own user.

let stopApp: (() => Promise<void> | void) | undefined;
const shared = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: {} });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

async function setup(): Promise<{ urls: ServerUrls; caller: SyncCaller; streamOf: string; signup: () => Promise<SyncCaller> }> {
  const { url, socketUrl, signup } = await shared;
  const caller = await signup();
  return { urls: { url: url!, socketUrl: socketUrl! }, caller, streamOf: `synctodos|owner:${caller.id}`, signup };
}

/** Writes the way another device or server code would: load, change, save (a committed seq). */
async function serverSave(id: string, fields: Record<string, unknown>): Promise<void> {
  const doc = await SyncTodo.findById(id);
  if (!doc) throw new Error(`no todo ${id}`);
  doc.set(fields);
  await doc.save();
}

/** The caller's todos as the server has them (soft-deleted ones left out), id → fields. */
async function serverTodos(caller: SyncCaller): Promise<Record<string, { title: unknown; done: unknown }>> {
  const docs = await SyncTodo.find({ ownerId: caller.id, deleted: { $ne: true } }).lean();
  return Object.fromEntries(docs.map((doc) => [String(doc._id), { title: doc.title, done: doc.done }]));
}

function localTodos(db: SyncDb): Record<string, { title: unknown; done: unknown }> {
  return Object.fromEntries(db.store.list("synctodos").map((entry) => [String(entry.data.id), { title: entry.data.title, done: entry.data.done }]));
}

async function started(db: SyncDb): Promise<SyncDb> {
  await db.start();
  await waitForStatus(db, settled);
  return db;
}

test("bootstrap pages the user's stream into the store; live deltas follow; the cursor is the stream's frontier", async (t) => {
  const { urls, caller, streamOf } = await setup();
  const { http } = await shared;
  for (const title of ["One", "Two", "Three"]) {
    await as(http, caller).post("/sync/mutate").send({ mutationId: uid("m"), collection: "synctodos", operation: "create", id: uid("todo"), data: { title } }).expect(200);
  }
  const db = await started(deviceOf(t, urls, caller, { snapshotPageSize: 2 }));
  await waitForStatus(db, (status) => status.streams[streamOf] === 3);
  t.deepEqual(db.store.list("synctodos", { sort: "title" }).map((entry) => entry.data.title), ["One", "Three", "Two"]);
  t.true(db.store.list("synctodos").every((entry) => !entry.isPending && entry.seq > 0 && entry.data.ownerId === caller.id));
  t.true(db.debug.stats.snapshotPages >= 2);

  const id = uid("todo");
  await new SyncTodo({ _id: id, title: "Saved by server code", ownerId: caller.id }).save();
  await eventually(() => db.store.get("synctodos", id) !== undefined);
  t.like(db.store.get("synctodos", id), { data: { title: "Saved by server code", done: false }, seq: 4, isPending: false });
  await waitForStatus(db, (status) => status.streams[streamOf] === 4);
  await serverSave(id, { done: true });
  await eventually(() => db.store.get("synctodos", id)?.data.done === true);
  t.is(db.getSyncStatus().streams[streamOf], 5);
  t.true(db.debug.stats.deltasApplied >= 2);
});

test("offline: mutations apply locally and queue; on reconnect they land in order, and what the server changed meanwhile arrives", async (t) => {
  const { urls, caller } = await setup();
  const db = await started(deviceOf(t, urls, caller));
  const kept = db.mutate({ collection: "synctodos", operation: "create", data: { title: "Before" } });
  await waitForStatus(db, settled);
  const other = await new SyncTodo({ _id: uid("todo"), title: "Other", ownerId: caller.id }).save();
  await eventually(() => db.store.get("synctodos", String(other._id)) !== undefined);

  db.goOffline();
  t.false(db.getSyncStatus().isOnline);
  const created = db.mutate({ collection: "synctodos", operation: "create", data: { title: "Offline" } });
  db.mutate({ collection: "synctodos", operation: "update", id: created.id, data: { done: true } });
  db.mutate({ collection: "synctodos", operation: "update", id: kept.id, data: { title: "Renamed offline" } });
  const doomed = db.mutate({ collection: "synctodos", operation: "create", data: { title: "Short-lived" } });
  db.mutate({ collection: "synctodos", operation: "delete", id: doomed.id });
  t.like(db.getSyncStatus(), { queuedCount: 5, isOnline: false });
  t.like(db.store.get("synctodos", created.id), { data: { title: "Offline", done: true }, isPending: true, seq: 0 });
  // Meanwhile the server changes an entity this device is not touching.
  await serverSave(String(other._id), { title: "Changed while you were away" });
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.like(db.store.get("synctodos", String(other._id)), { data: { title: "Other" } });

  db.goOnline();
  await waitForStatus(db, (status) => settled(status) && db.store.get("synctodos", String(other._id))?.data.title === "Changed while you were away");
  t.deepEqual(localTodos(db), await serverTodos(caller));
  t.like(db.store.get("synctodos", created.id), { data: { title: "Offline", done: true }, isPending: false });
  t.like(db.store.get("synctodos", doomed.id), { deleted: true, isPending: false });
  // Soft-deleted: read around the plugin that hides tombstones from queries.
  t.like(await SyncTodo.collection.findOne({ _id: doomed.id as never }), { deleted: true });
});

/** Two devices of one user, both settled with one shared todo; returns it and the devices. */
async function twoDevicesSharing(t: Parameters<typeof deviceOf>[0], title = "Shared") {
  const { urls, caller } = await setup();
  const a = await started(deviceOf(t, urls, caller));
  const b = await started(deviceOf(t, urls, caller));
  const { id } = a.mutate({ collection: "synctodos", operation: "create", data: { title } });
  await waitForStatus(a, settled);
  await eventually(() => b.store.get("synctodos", id)?.seq === a.store.get("synctodos", id)?.seq);
  return { a, b, id, caller };
}

test("conflict → useServer: the entity is blocked, the other entities go on; resolving takes the server's data and seq and drops the change", async (t) => {
  const { a, b, id } = await twoDevicesSharing(t);
  a.goOffline();
  const mine = a.mutate({ collection: "synctodos", operation: "update", id, data: { title: "Mine" } });
  a.mutate({ collection: "synctodos", operation: "update", id, data: { done: true } });
  const unrelated = a.mutate({ collection: "synctodos", operation: "create", data: { title: "Unrelated" } });
  b.mutate({ collection: "synctodos", operation: "update", id, data: { title: "Theirs" } });
  await waitForStatus(b, settled);
  a.goOnline();
  const status = await waitForStatus(a, (current) => current.conflictCount === 1 && current.queuedCount === 2 && !current.draining);
  t.like(status, { blockedEntities: 1, failedCount: 0, collections: { synctodos: { conflictCount: 1, queuedCount: 2, failedCount: 0 } } });
  t.like(a.store.get("synctodos", unrelated.id), { isPending: false });
  const [conflict] = listConflicts({ store: a.store });
  const serverSeq = b.store.get("synctodos", id)!.seq;
  t.like(conflict, { mutationId: mine.mutationId, code: "conflict", entityId: id, serverSeq, serverDeleted: false, serverDoc: { title: "Theirs" }, data: { title: "Mine" } });
  t.like(a.store.get("synctodos", id), { data: { title: "Mine", done: true }, isPending: true });

  await a.resolveConflict({ mutationId: mine.mutationId, strategy: "useServer" });
  t.like(a.store.get("synctodos", id), { data: { title: "Theirs", done: false }, seq: serverSeq, isPending: false, deleted: false });
  t.like(a.getSyncStatus(), { conflictCount: 0, queuedCount: 0, blockedEntities: 0 });
  await waitForStatus(a, settled);
  t.like(await SyncTodo.findById(id).lean(), { title: "Theirs", done: false });
});

test("conflict → keepMine: re-sent under a new mutationId over the server's seq; local data kept; the server ends with it", async (t) => {
  const { a, b, id } = await twoDevicesSharing(t);
  a.goOffline();
  const mine = a.mutate({ collection: "synctodos", operation: "update", id, data: { title: "Mine" } });
  a.mutate({ collection: "synctodos", operation: "update", id, data: { done: true } });
  b.mutate({ collection: "synctodos", operation: "update", id, data: { title: "Theirs" } });
  await waitForStatus(b, settled);
  a.goOnline();
  await waitForStatus(a, (status) => status.conflictCount === 1 && !status.draining);
  await a.resolveConflict({ mutationId: mine.mutationId, strategy: "keepMine" });
  const requeued = a.outbox.list()[0]!;
  t.not(requeued.mutationId, mine.mutationId);
  t.is(requeued.baseVersion, b.store.get("synctodos", id)!.seq);
  t.like(a.store.get("synctodos", id), { data: { title: "Mine", done: true }, isPending: true });
  await waitForStatus(a, settled);
  t.like(await SyncTodo.findById(id).lean(), { title: "Mine", done: true });
  await eventually(() => b.store.get("synctodos", id)?.data.title === "Mine" && b.store.get("synctodos", id)?.data.done === true);
  t.is(listConflicts({ store: a.store }).length, 0);
});

test("conflict with an entity deleted on the server: useServer writes the tombstone", async (t) => {
  const { a, b, id } = await twoDevicesSharing(t);
  a.goOffline();
  const mine = a.mutate({ collection: "synctodos", operation: "update", id, data: { title: "Edited offline" } });
  b.mutate({ collection: "synctodos", operation: "delete", id });
  await waitForStatus(b, settled);
  a.goOnline();
  await waitForStatus(a, (current) => current.conflictCount === 1 && !current.draining);
  t.like(listConflicts({ store: a.store })[0], { mutationId: mine.mutationId, code: "conflict", serverDeleted: true });
  await a.resolveConflict({ mutationId: mine.mutationId, strategy: "useServer" });
  await eventually(() => a.store.get("synctodos", id)?.deleted === true);
  t.like(a.store.get("synctodos", id), { deleted: true, isPending: false });
  t.deepEqual(a.store.list("synctodos").map((entry) => entry.data.id), []);
});

test("a terminal validation failure blocks its entity's later changes until retryFailed re-sends it; the rest of the queue lands", async (t) => {
  const { urls, caller } = await setup();
  const db = await started(deviceOf(t, urls, caller));
  const { id } = db.mutate({ collection: "synctodos", operation: "create", data: { title: "Fine" } });
  await waitForStatus(db, settled);
  db.goOffline();
  // The router's preUpdate hook throws for this title: a validation nack.
  const refused = db.mutate({ collection: "synctodos", operation: "update", id, data: { title: "rejected title" } });
  const later = db.mutate({ collection: "synctodos", operation: "update", id, data: { done: true } });
  const other = db.mutate({ collection: "synctodos", operation: "create", data: { title: "Other" } });
  db.goOnline();
  const status = await waitForStatus(db, (current) => current.failedCount === 1 && current.queuedCount === 2 && !current.draining);
  t.like(status, { blockedEntities: 1, conflictCount: 0 });
  t.like(listConflicts({ store: db.store })[0], { mutationId: refused.mutationId, code: "validation", entityId: id });
  t.like(db.store.get("synctodos", other.id), { isPending: false });
  t.is(db.outbox.list().find((row) => row.mutationId === later.mutationId)?.status, "queued");
  t.like(await SyncTodo.findById(id).lean(), { title: "Fine", done: false });
  // retryFailed sends it again (it still fails: the server's rule has not changed)...
  t.is(await db.retryFailed({ entityId: id }), 1);
  await waitForStatus(db, (current) => current.failedCount === 1 && !current.draining && db.debug.stats.nacks >= 2);
  t.like(await SyncTodo.findById(id).lean(), { title: "Fine", done: false });
  // ...and useServer gives up on it (with the entity's later changes, built on it).
  await db.resolveConflict({ mutationId: refused.mutationId, strategy: "useServer" });
  t.like(db.getSyncStatus(), { failedCount: 0, blockedEntities: 0 });
  t.like(db.store.get("synctodos", id), { data: { title: "Fine", done: false }, isPending: false });
});

test("one permanently rejected mutation beside 50 good ones: the 50 land, the one is visible in status and conflicts", async (t) => {
  const { urls, caller } = await setup();
  const db = await started(deviceOf(t, urls, caller));
  db.goOffline();
  const good: string[] = [];
  for (let index = 0; index < 25; index++) good.push(db.mutate({ collection: "synctodos", operation: "create", data: { title: `good ${index}` } }).id);
  const bad = db.mutate({ collection: "synctodos", operation: "create", data: { title: "x".repeat(201) } });
  for (let index = 25; index < 50; index++) good.push(db.mutate({ collection: "synctodos", operation: "create", data: { title: `good ${index}` } }).id);
  db.goOnline();
  const status = await waitForStatus(db, (current) => current.queuedCount === 1 && current.failedCount === 1 && !current.draining);
  t.like(status, { failedCount: 1, blockedEntities: 1, conflictCount: 0, collections: { synctodos: { queuedCount: 1, failedCount: 1, conflictCount: 0 } } });
  t.is(await SyncTodo.countDocuments({ _id: { $in: good } }), 50);
  t.is(await SyncTodo.countDocuments({ _id: bad.id }), 0);
  t.like(listConflicts({ store: db.store }), [{ mutationId: bad.mutationId, code: "validation", entityId: bad.id }]);
  t.like(db.store.get("synctodos", bad.id), { isPending: true });
});

test("forceResync pages from 0: repairs entities that differ, purges ones the server does not have, keeps pending changes", async (t) => {
  const { urls, caller, streamOf } = await setup();
  const persisterFactory = createMemoryPersister();
  const first = await started(deviceOf(t, urls, caller, { persisterFactory, name: "drifted" }));
  const real = first.mutate({ collection: "synctodos", operation: "create", data: { title: "Real" } });
  // The ack settles the outbox; the cursor moves only with the delta. Stopping before it came would
  // leave cursor 0, and the next start's bootstrap would repair the drift before forceResync could.
  await waitForStatus(first, (status) => settled(status) && (status.streams[streamOf] ?? 0) >= 1);
  await first.stop();
  // The stored copy drifted: a ghost entity and a wrong title (as after a bug or a lost delta).
  const persister = await persisterFactory({ name: "drifted", userId: caller.id });
  const seq = (await SyncTodo.findById(real.id).lean())!._syncSeq as number;
  await persister.write([
    { table: "entities", key: `synctodos/ghost`, value: { collection: "synctodos", id: "ghost", data: { id: "ghost", title: "Ghost" }, seq: 1, deleted: false, stream: streamOf } },
    { table: "entities", key: `synctodos/${real.id}`, value: { collection: "synctodos", id: real.id, data: { id: real.id, title: "Wrong" }, seq, deleted: false, stream: streamOf } },
  ]);
  const db = deviceOf(t, urls, caller, { persisterFactory, name: "drifted" });
  db.goOffline();
  await db.start();
  t.like(db.store.get("synctodos", "ghost"), { data: { title: "Ghost" } });
  const pending = db.mutate({ collection: "synctodos", operation: "create", data: { title: "Pending" } });
  t.like(await db.forceResync(), { ok: false, reason: "offline" });
  db.goOnline();
  await waitForStatus(db, (status) => status.isOnline && !status.isSyncing);
  const result = await db.forceResync();
  t.like(result, { ok: true, streams: 1, purged: 1 });
  t.true(result.repaired >= 1);
  t.is(db.store.get("synctodos", "ghost"), undefined);
  t.like(db.store.get("synctodos", real.id), { data: { title: "Real" } });
  t.truthy(db.store.get("synctodos", pending.id));
  await waitForStatus(db, settled);
  t.deepEqual(localTodos(db), await serverTodos(caller));
});

test("signOut with wipeOnSignOut wipes the stored copy; the next start bootstraps again from cursor 0", async (t) => {
  const { urls, caller, streamOf } = await setup();
  const persisterFactory = createMemoryPersister();
  const db = await started(deviceOf(t, urls, caller, { persisterFactory, name: "wipe-me", wipeOnSignOut: true }));
  db.mutate({ collection: "synctodos", operation: "create", data: { title: "Synced" } });
  await waitForStatus(db, settled);
  db.goOffline();
  db.mutate({ collection: "synctodos", operation: "create", data: { title: "Never sent" } });
  await db.signOut();
  t.deepEqual(db.store.list("synctodos"), []);
  const stored = await (await persisterFactory({ name: "wipe-me", userId: caller.id })).load();
  t.deepEqual(stored, { entities: [], _outbox: [], _cursors: [], _conflicts: [], _meta: [] });
  db.goOnline();
  await started(db);
  await waitForStatus(db, (status) => status.streams[streamOf] === 1);
  t.deepEqual(db.store.list("synctodos").map((entry) => entry.data.title), ["Synced"]);
});

test("restart with a stored outbox: queued writes are sent once after the restart, nothing twice", async (t) => {
  const { urls, caller } = await setup();
  const persisterFactory = createMemoryPersister();
  const first = await started(deviceOf(t, urls, caller, { persisterFactory, name: "restart" }));
  first.goOffline();
  const ids = [1, 2, 3].map((n) => first.mutate({ collection: "synctodos", operation: "create", data: { title: `queued ${n}` } }).id);
  await first.stop();
  const second = await started(deviceOf(t, urls, caller, { persisterFactory, name: "restart" }));
  t.is(await SyncTodo.countDocuments({ _id: { $in: ids } }), 3);
  t.deepEqual(localTodos(second), await serverTodos(caller));
});

test("killed mid-drain and restarted from the stored outbox: every write lands, none twice", async (t) => {
  const { urls, caller } = await setup();
  const persisterFactory = createMemoryPersister();
  const first = await started(deviceOf(t, urls, caller, { persisterFactory, name: "mid-drain", batchSize: 10 }));
  const queued = await queueThenStopMidDrain(first);
  const sentBefore = await SyncTodo.countDocuments({ _id: { $in: queued.map((entry) => entry.id) } });
  t.true(sentBefore >= 20 && sentBefore < 60, `${sentBefore} landed before the stop`);

  const second = await started(deviceOf(t, urls, caller, { persisterFactory, name: "mid-drain" }));
  t.is(second.outbox.count(), 0);
  t.is(await SyncTodo.countDocuments({ _id: { $in: queued.map((entry) => entry.id) } }), 60);
  const records = await SyncTodo.db.collection("svc_sync_mutations").countDocuments({ mutationId: { $in: queued.map((entry) => entry.mutationId) } });
  t.is(records, 60, "each mutation applied once");
  await eventually(() => second.store.list("synctodos").length === 60);
  t.deepEqual(localTodos(second), await serverTodos(caller));
});

test("a tenant stream is shared by its members; a write into a tenant the user is not in is refused (forbidden) and stays visible", async (t) => {
  const { url, socketUrl, signup } = await shared;
  const urls = { url: url!, socketUrl: socketUrl! };
  // Test users are in the tenant named by their email's prefix.
  const org = `org${uid("").replace(/[^a-z0-9]/gi, "")}`;
  const [alice, bob] = [await signup(org), await signup(org)];
  const a = await started(deviceOf(t, urls, alice, { collections: ["syncnotes"] }));
  const b = await started(deviceOf(t, urls, bob, { collections: ["syncnotes"] }));
  const { id } = a.mutate({ collection: "syncnotes", operation: "create", data: { text: "hello", orgId: org } });
  await eventually(() => b.store.get("syncnotes", id)?.data.text === "hello");
  t.like(b.store.get("syncnotes", id), { isPending: false, data: { orgId: org, ownerId: alice.id } });
  await waitForStatus(b, (status) => status.streams[`syncnotes|tenant:${org}`] === 1);
  const refused = b.mutate({ collection: "syncnotes", operation: "create", data: { text: "elsewhere", orgId: `${org}x` } });
  await waitForStatus(b, (status) => status.failedCount === 1 && !status.draining);
  t.like(listConflicts({ store: b.store })[0], { mutationId: refused.mutationId, code: "forbidden", entityId: refused.id });
  t.like(b.store.get("syncnotes", refused.id), { isPending: true });
});

test("the HTTP channel looks up any number of ids, 100 a request (the server's limit)", async (t) => {
  const { urls, caller } = await setup();
  const mine = [uid("todo"), uid("todo"), uid("todo")];
  for (const id of mine) await new SyncTodo({ _id: id, title: `Lookup ${id}`, ownerId: caller.id }).save();
  const unknown = Array.from({ length: 240 }, () => uid("todo"));
  // The real ones last: past the first request's 100.
  const found = await createHttpChannel({ baseUrl: urls.url }).entities({ collection: "synctodos", ids: [...unknown, ...mine] }, caller.token);
  t.deepEqual(found.map((entity) => entity.id).sort(), [...mine].sort());
});

test.serial("a subscription the server could not answer for now (SYNC_UNAVAILABLE) is asked for again, and its deltas then arrive", async (t) => {
  const { url, socketUrl, signup } = await shared;
  const tenant = `unavailable${process.pid}`;
  const [reader, writer] = [await signup(tenant), await signup(tenant)];
  // The tenant's streams come from getUserScopes, which fails while the device connects and subscribes.
  scopeLookup.failing = true;
  t.teardown(() => void (scopeLookup.failing = false));
  const db = deviceOf(t, { url: url!, socketUrl: socketUrl! }, reader, { collections: ["syncnotes"], debug: true });
  void db.start().catch(() => undefined);
  await eventually(() => db.debug.events.some((event) => event.type === "sync-error" && event.detail?.code === "SYNC_UNAVAILABLE"));
  scopeLookup.failing = false;
  await eventually(() => db.getSyncStatus().streams[`syncnotes|tenant:${tenant}`] !== undefined);
  const id = uid("note");
  await as((await shared).http, writer).post("/sync/mutate").send({ mutationId: uid("m"), collection: "syncnotes", operation: "create", id, data: { text: "after the outage", orgId: tenant } }).expect(200);
  await eventually(() => db.store.get("syncnotes", id) !== undefined);
  t.like(db.store.get("syncnotes", id), { data: { text: "after the outage" } });
  t.truthy(await SyncNote.findById(id));
});
