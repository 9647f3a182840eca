// Sockets across instances with CACHE_URL: two sync app processes on one database and one real
// redis-server. A broadcast made on one instance reaches a socket connected to the other (the
// Redis streams adapter), while sync deltas — which every instance pushes from its own change
// stream — reach each socket once, not once per instance.
import test from "ava";
import { SOCKET_SERVER } from "../../contracts/socket-server.js";
import { recordingSocket } from "../../test/support/recording-socket.js";
import { twoProcesses } from "../../test/support/second-process.js";
import { startTestRedis } from "../../test/support/redis-server.js";
import { as, syncTestApp, uid } from "../../test/support/sync-test-app.js";
import type { SyncDelta } from "../sync/index.js";

const redis = startTestRedis();
const cacheUrl = redis.then(({ url }) => ({ CACHE_URL: url }));
// The second instance is a process of its own, as in production (and as synced models need: a
// model streams one way per process).
const { first, second } = twoProcesses(test, async (t) => syncTestApp(t, { realtime: {}, env: await cacheUrl }), new URL("../../test/support/sync-second-process.ts", import.meta.url), cacheUrl);
// After the processes' own clean-up (hooks run in the order they are declared).
test.after.always(async () => (await redis.catch(() => undefined))?.stop());

test("a broadcast reaches the other instance's sockets; a sync delta reaches each socket once", async (t) => {
  const [one, two] = [await first, await second];
  const alice = await one.signup();
  const client = await recordingSocket(two.socketUrl!, { token: alice.token, teardown: (fn) => t.teardown(fn) });
  client.emit("sync:subscribe", { collections: ["synctodos"] });
  await client.next("sync:subscribed");

  const id = uid("todo");
  await as(one.http, alice).post("/sync/mutate").send({ mutationId: uid("m"), collection: "synctodos", operation: "create", id, data: { title: "Written on one" } }).expect(200);
  t.like(await client.next<SyncDelta>("sync:delta", (delta) => delta.id === id), { method: "create", data: { title: "Written on one" } });

  // A broadcast from the first instance travels through Redis to the second's socket. The stream
  // is ordered, so a copy of the delta relayed the same way would have arrived before it.
  one.app.resolve(SOCKET_SERVER).emit("svc-test:marker", { from: "one" });
  t.deepEqual(await client.next("svc-test:marker"), { from: "one" });
  t.is(client.events.filter(([name, payload]) => name === "sync:delta" && (payload as SyncDelta).id === id).length, 1);
  t.is(two.output(), "", "the second instance logged no errors");
});
