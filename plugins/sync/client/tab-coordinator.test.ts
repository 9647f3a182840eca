import "fake-indexeddb/auto";
import test from "ava";
import { createFakeTransport, createTabLocks, type FakeTransport } from "../testing/index.js";
import { createSyncDb, generateMutationId, type SyncDb, type SyncDbOptions } from "./index.js";
import { eventually, settled, waitForStatus } from "./test-support/wait-for.js";

// Two tabs of one app in one process: one fake-indexeddb (the global), Node's real
// BroadcastChannel, and createTabLocks() in place of the browser's navigator.locks.

const STREAM = "todos|owner:fake";
const auth = { getToken: () => "token-1", getUserId: () => "u1", onAuthChange: () => () => {} };

function tab(t: { teardown: (fn: () => Promise<void>) => void }, fake: FakeTransport, name: string, options: Partial<SyncDbOptions>): SyncDb {
  const db = createSyncDb({ name, collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider: auth, ...options });
  t.teardown(() => db.stop());
  return db;
}

const leaderOf = (db: SyncDb) => db.debug.events.some((event) => event.type === "leading");

test("one leader drains every tab's writes; the follower sees the leader's changes and status; when the leader stops, the follower takes over", async (t) => {
  const fake = createFakeTransport();
  const locks = createTabLocks();
  const name = `tabs-${generateMutationId()}`;
  const a = tab(t, fake, name, { tabs: { locks }, debug: true });
  const b = tab(t, fake, name, { tabs: { locks }, debug: true });
  await a.start();
  await waitForStatus(a, settled);
  await b.start();
  t.true(leaderOf(a));
  t.false(leaderOf(b));
  // The follower shows the leader's connection.
  await waitForStatus(b, (status) => status.isOnline && status.persistence === "durable");

  // A write in the follower is stored by it, announced, and sent by the leader — once.
  const written = b.mutate({ collection: "todos", operation: "create", data: { title: "from tab b" } });
  t.like(b.store.get("todos", written.id), { isPending: true });
  await eventually(() => fake.sent.some((mutation) => mutation.mutationId === written.mutationId));
  await eventually(() => b.store.get("todos", written.id)?.isPending === false, () => JSON.stringify(b.store.get("todos", written.id)));
  t.like(a.store.get("todos", written.id), { isPending: false, data: { title: "from tab b" } });

  // Server changes reach the leader's socket and, through it, the follower.
  fake.deliverDelta({ collection: "todos", id: "from-server", method: "create", data: { title: "server" }, stream: STREAM });
  await eventually(() => b.store.get("todos", "from-server") !== undefined);
  await waitForStatus(b, (status) => status.streams[STREAM] === 2);

  // Calls that need the engine go to the leader.
  const resync = await b.forceResync();
  t.like(resync, { ok: true });

  // Hand-over: the leader stops; the follower takes the lock and runs the engine itself.
  b.goOffline(); // asks the leader; a no-op for the follower's own engine
  await waitForStatus(b, (status) => !status.isOnline);
  await a.stop();
  await eventually(() => leaderOf(b));
  const afterHandOver = b.mutate({ collection: "todos", operation: "update", id: written.id, data: { done: true } });
  b.goOnline();
  await waitForStatus(b, settled);
  t.is(fake.sent.filter((mutation) => mutation.mutationId === afterHandOver.mutationId).length, 1);
  t.is(fake.sent.filter((mutation) => mutation.mutationId === written.mutationId).length, 1);
  t.like(b.store.get("todos", written.id), { isPending: false, data: { title: "from tab b", done: true } });
});

test("a tab started while another leads follows it; tabs: false runs an engine of its own", async (t) => {
  const fake = createFakeTransport();
  const locks = createTabLocks();
  const name = `tabs-${generateMutationId()}`;
  const a = tab(t, fake, name, { tabs: { locks }, debug: true });
  await a.start();
  const follower = tab(t, fake, name, { tabs: { locks }, debug: true });
  await follower.start();
  const solo = tab(t, createFakeTransport(), name, { tabs: false, debug: true });
  await solo.start();
  await eventually(() => leaderOf(a));
  t.false(leaderOf(follower));
  t.false(leaderOf(solo), "no tab coordination: no leadership to log");
  await waitForStatus(solo, settled);
  t.true(solo.getSyncStatus().isOnline);
});
