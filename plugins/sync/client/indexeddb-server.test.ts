import "fake-indexeddb/auto";
import test from "ava";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { SyncTodo, syncTestApp, type SyncCaller } from "../../../test/support/sync-test-app.js";
import { createTabLocks } from "../testing/index.js";
import { createIndexedDbPersister, generateMutationId, type SyncDb } from "./index.js";
import { deviceOf, queueThenStopMidDrain, type ServerUrls } from "./test-support/server-client.js";
import { eventually, settled, waitForStatus } from "./test-support/wait-for.js";

// The encrypted IndexedDB persister (fake-indexeddb) against the real sync server in process:
// the key comes from GET /sync/key; the outbox survives a kill; two tabs share one database.

let stopApp: (() => Promise<void> | void) | undefined;
const shared = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: {} });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

async function setup(): Promise<{ urls: ServerUrls; caller: SyncCaller }> {
  const { url, socketUrl, signup } = await shared;
  return { urls: { url: url!, socketUrl: socketUrl! }, caller: await signup() };
}

async function started(db: SyncDb): Promise<SyncDb> {
  await db.start();
  await waitForStatus(db, settled);
  return db;
}

test("killed mid-drain and restarted from the encrypted stored outbox: every write lands, none twice", async (t) => {
  const { urls, caller } = await setup();
  const name = `durable-${generateMutationId()}`;
  const persisterFactory = createIndexedDbPersister();
  const first = await started(deviceOf(t, urls, caller, { persisterFactory, name, batchSize: 10, tabs: false }));
  t.is(first.getSyncStatus().persistence, "durable");
  const queued = await queueThenStopMidDrain(first);
  const ids = queued.map((entry) => entry.id);
  const landedBefore = await SyncTodo.countDocuments({ _id: { $in: ids } });
  t.true(landedBefore >= 20 && landedBefore < 60, `${landedBefore} landed before the stop`);

  // A new client object (a reloaded page) on the same stored database.
  const second = await started(deviceOf(t, urls, caller, { persisterFactory: createIndexedDbPersister(), name, tabs: false }));
  t.is(second.getSyncStatus().persistence, "durable");
  t.is(second.outbox.count(), 0);
  t.is(await SyncTodo.countDocuments({ _id: { $in: ids } }), 60);
  const records = await SyncTodo.db.collection("svc_sync_mutations").countDocuments({ mutationId: { $in: queued.map((entry) => entry.mutationId) } });
  t.is(records, 60, "each mutation applied once");
  await eventually(() => second.store.list("synctodos").length === 60);
});

test("two tabs on one encrypted database: the leader sends the follower's writes; after the leader closes, the follower sends its own", async (t) => {
  const { urls, caller } = await setup();
  const name = `tabs-${generateMutationId()}`;
  const locks = createTabLocks();
  const a = await started(deviceOf(t, urls, caller, { persisterFactory: createIndexedDbPersister(), name, tabs: { locks } }));
  const b = deviceOf(t, urls, caller, { persisterFactory: createIndexedDbPersister(), name, tabs: { locks } });
  await b.start();
  await waitForStatus(b, (status) => status.isOnline);

  const fromB = b.mutate({ collection: "synctodos", operation: "create", data: { title: "written in tab b" } });
  await eventually(() => b.store.get("synctodos", fromB.id)?.isPending === false);
  t.like(await SyncTodo.findById(fromB.id).lean(), { title: "written in tab b", ownerId: caller.id });
  t.like(a.store.get("synctodos", fromB.id), { isPending: false });

  await a.stop();
  const afterHandOver = b.mutate({ collection: "synctodos", operation: "update", id: fromB.id, data: { done: true } });
  await eventually(() => b.store.get("synctodos", fromB.id)?.isPending === false);
  await waitForStatus(b, settled);
  t.like(await SyncTodo.findById(fromB.id).lean(), { done: true });
  const records = await SyncTodo.db.collection("svc_sync_mutations").countDocuments({ mutationId: { $in: [fromB.mutationId, afterHandOver.mutationId] } });
  t.is(records, 2);
});
