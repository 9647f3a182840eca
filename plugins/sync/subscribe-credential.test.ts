import test from "ava";
import { stopTestDatabase } from "../../hosts/testing.js";
import { TestUser } from "../../test/support/auth-test-app.js";
import { recordingSocket } from "../../test/support/recording-socket.js";
import { as, syncTestApp, uid, type SyncTestApp } from "../../test/support/sync-test-app.js";

// sync:subscribe checks the socket's credential as a mutation does, so a user disabled since the
// last periodic check (60 s by default) does not start receiving other users' writes.

let stopApp: (() => Promise<void> | void) | undefined;
const shared: Promise<SyncTestApp> = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: {} });
const closers: Array<() => void> = [];
test.after.always(async () => {
  closers.forEach((close) => close());
  await stopApp?.();
  await stopTestDatabase();
});

test("a user disabled after connecting who subscribes gets sync:auth-expired, no sync:subscribed and no deltas", async (t) => {
  const { http, signup, socketUrl } = await shared;
  const tenant = `sub${process.pid}`;
  const [alice, bob] = [await signup(tenant), await signup(tenant)];
  const client = await recordingSocket(socketUrl!, { token: alice.token, teardown: (fn) => closers.push(fn) });
  await TestUser.updateOne({ _id: alice.id }, { disabled: true });
  client.emit("sync:subscribe", { collections: ["syncnotes"] });
  t.deepEqual(await client.next("sync:auth-expired"), { reason: "disabled" });
  t.is(await client.disconnected, "io server disconnect");
  await as(http, bob).post("/sync/mutate").send({ mutationId: uid("m"), collection: "syncnotes", operation: "create", id: uid("note"), data: { text: "for members", orgId: tenant } }).expect(200);
  t.deepEqual(client.events.map(([event]) => event), ["sync:auth-expired"]);
});
