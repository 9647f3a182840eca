import test from "ava";
import { createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { TestUser } from "../../test/support/auth-test-app.js";
import { recordingSocket } from "../../test/support/recording-socket.js";
import { SyncTodo } from "../../test/support/sync-test-app.js";
import { authPlugin } from "../auth/index.js";
import { modelRouter, Permissions } from "../rest/index.js";
import { realtimeApp, syncApp, SyncErrors } from "./index.js";

// realtimeApp's start-up: it needs the auth plugin, in whatever order the app registers them.

test.after.always(() => stopTestDatabase());

const owned = { list: [Permissions.IsOwner], read: [Permissions.IsOwner], create: [Permissions.IsAuthenticated], update: [Permissions.IsOwner], delete: [Permissions.IsOwner] };

test("without the auth plugin realtimeApp refuses to start with SYNC_REALTIME_NEEDS_AUTH", async (t) => {
  const app = (await createTestApp()).register(modelRouter("/plugin-todos", SyncTodo, { permissions: owned, sync: { scope: { type: "owner" } } })).register(syncApp()).register(realtimeApp());
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.build());
  t.is((error as { code?: string }).code, SyncErrors.REALTIME_NEEDS_AUTH.code);
});

test("registered before the auth plugin, realtimeApp starts and serves signed-in sockets", async (t) => {
  const app = (await createTestApp({ port: 0, host: "127.0.0.1" }))
    .register(modelRouter("/plugin-todos", SyncTodo, { permissions: owned, sync: { scope: { type: "owner" } } }))
    .register(syncApp())
    .register(realtimeApp())
    .register(authPlugin({ userModel: TestUser }));
  t.teardown(() => app.stop());
  const running = await app.start();
  const user = await createUser(app);
  const client = await recordingSocket(running.socketUrl!, { token: await loginAs(app, user), teardown: (fn) => t.teardown(fn) });
  const [answer] = await client.request<Array<{ collection: string; streams: string[] }>>("sync:subscribe", { collections: [SyncTodo.collection.collectionName] });
  t.deepEqual(answer, { collection: SyncTodo.collection.collectionName, streams: [`${SyncTodo.collection.collectionName}|owner:${user.id}`] });
});

test("without a synced model, syncApp and realtimeApp start and each warns that it serves nothing", async (t) => {
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
  const app = (await createTestApp({ logger, port: 0, host: "127.0.0.1" }))
    .register(authPlugin({ userModel: TestUser }))
    .register(syncApp())
    .register(realtimeApp());
  t.teardown(() => app.stop());
  const running = await app.start();
  t.true(warnings.includes("The sync plugin serves no collection: give a modelRouter the sync option"), warnings.join("\n"));
  t.true(warnings.includes("realtimeApp() has no collection to push: give a modelRouter the sync option"), warnings.join("\n"));
  t.is((await fetch(`${running.url}/openapi.json`)).status, 200);
});
