import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { SyncTodo, syncTestApp, type SyncCaller } from "../../../test/support/sync-test-app.js";
import type { SyncDb } from "./index.js";
import { callerAuth, deviceOf, type ServerUrls } from "./test-support/server-client.js";
import { settled, waitForStatus } from "./test-support/wait-for.js";

// Credentials that run out, against the real server: access tokens live 2 s here, and the socket
// re-checks them every 250 ms (sync:auth-expired). Queued writes must survive, drain after the
// refresh, and onAuthRequired must fire once per pause episode.

let stopApp: (() => Promise<void> | void) | undefined;
const shared = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: { authCheckIntervalMs: 250 }, env: { TOKEN_EXPIRES_IN: "2s" } });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

async function login(caller: SyncCaller): Promise<string> {
  const { http } = await shared;
  const response = await request(http).post("/auth/login").send({ email: caller.email, password: "correct horse battery staple" }).expect(200);
  return response.body.data.token as string;
}

/** Counts pause episodes (transitions into `paused: auth`) as the status reports them. */
function countPauses(db: SyncDb): () => number {
  let pauses = 0;
  let paused = false;
  db.onStatusChange((status) => {
    if (status.paused && !paused) pauses++;
    paused = status.paused !== undefined;
  });
  return () => pauses;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a token expiring online: sync:auth-expired pauses replay, onAuthRequired fires once, the refresh resumes and the queued writes land", async (t) => {
  const { url, socketUrl, signup } = await shared;
  const urls: ServerUrls = { url: url!, socketUrl: socketUrl! };
  const caller = await signup();
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  let required = 0;
  const auth = callerAuth(caller, async () => {
    await gate;
    return login(caller);
  });
  const db = deviceOf(t, urls, caller, { authProvider: auth, onAuthRequired: () => required++ });
  const pauses = countPauses(db);
  await db.start();
  await waitForStatus(db, settled);
  await waitForStatus(db, (status) => status.paused === "auth", 15_000);
  t.like(db.getSyncStatus(), { paused: "auth", isOnline: false });
  const queued = [1, 2, 3].map((n) => db.mutate({ collection: "synctodos", operation: "create", data: { title: `while paused ${n}` } }).id);
  await sleep(300);
  t.is(required, 1, "once for the episode, whatever else fails meanwhile");
  t.true(db.store.list("synctodos").every((entry) => entry.isPending));
  openGate();
  await waitForStatus(db, (status) => settled(status) && !status.paused, 15_000);
  t.is(await SyncTodo.countDocuments({ _id: { $in: queued } }), 3);
  t.not(auth.token, caller.token);
  t.is(required, pauses());
});

test("a token that expired while offline: queued writes are neither dropped nor blocked — pause, refresh, resume, drain", async (t) => {
  const { url, socketUrl, signup } = await shared;
  const urls: ServerUrls = { url: url!, socketUrl: socketUrl! };
  const caller = await signup();
  let required = 0;
  const auth = callerAuth(caller, () => login(caller));
  const db = deviceOf(t, urls, caller, { authProvider: auth, onAuthRequired: () => required++ });
  const pauses = countPauses(db);
  db.goOffline();
  await db.start();
  const queued = [1, 2, 3].map((n) => db.mutate({ collection: "synctodos", operation: "create", data: { title: `offline ${n}` } }).id);
  // Past the token's lifetime.
  await sleep(2_500);
  db.goOnline();
  await waitForStatus(db, (status) => settled(status) && !status.paused && status.queuedCount === 0, 15_000);
  t.is(await SyncTodo.countDocuments({ _id: { $in: queued } }), 3);
  t.true(required >= 1);
  t.is(required, pauses());
  t.is(db.getSyncStatus().failedCount, 0);
});
