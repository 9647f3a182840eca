// The demo's todos synced to a device, as a client app would use them: sign in, open the socket,
// subscribe, page the snapshot, write offline-minted todos with sync:mutate, and see writes made
// elsewhere (here: the REST API) arrive as deltas.
import { randomUUID } from "node:crypto";
import test from "ava";
import { io } from "socket.io-client";
import request from "supertest";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import type { MutationOutcome, SnapshotPage, SyncDelta } from "../../plugins/sync/index.js";
import { withDemoPlugins } from "./app.js";

test.after.always(() => stopTestDatabase());

test("a device keeps the demo's todos in sync over the socket and the snapshot", async (t) => {
  const app = withDemoPlugins(await createTestApp({ port: 0, host: "127.0.0.1" })).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  const running = await app.start();
  const token = await loginAs(app, await createUser(app, { name: "Ada" }));

  const socket = io(running.socketUrl!, { auth: { token }, transports: ["websocket"], reconnection: false });
  t.teardown(() => void socket.disconnect());
  const deltas: SyncDelta[] = [];
  socket.on("sync:delta", (delta: SyncDelta) => void deltas.push(delta));
  const [subscribed] = (await socket.emitWithAck("sync:subscribe", { collections: ["todos"] })) as Array<{ collection: string; streams: string[] }>;
  t.is(subscribed!.collection, "todos");
  const stream = subscribed!.streams[0]!;

  const id = randomUUID();
  const created = (await socket.emitWithAck("sync:mutate", { mutationId: randomUUID(), collection: "todos", operation: "create", id, data: { title: "Buy milk", tags: ["errands"] } })) as MutationOutcome;
  t.true("ack" in created);

  // The same todo through REST, then a page of the snapshot: one entity, at the seq REST's edit left.
  await request(running.app).patch(`/todos/${id}`).set("Authorization", `Bearer ${token}`).send({ done: true }).expect(200);
  const page = (await request(running.app).get("/sync/snapshot").query({ collection: "todos", stream }).set("Authorization", `Bearer ${token}`).expect(200)).body as SnapshotPage;
  t.like(page.entities, [{ id, seq: 2, deleted: false, data: { title: "Buy milk", done: true } }]);

  for (let attempt = 0; attempt < 400 && deltas.length < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  t.deepEqual(deltas.map((delta) => [delta.method, delta.seq]), [["create", 1], ["update", 2]]);
});
