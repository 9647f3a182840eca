import "./test-support/dom-environment.js";
import { act } from "@testing-library/react";
import test from "ava";
import { createElement as h } from "react";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { SyncTodo, syncTestApp, uid } from "../../../test/support/sync-test-app.js";
import { deviceOf } from "../client/test-support/server-client.js";
import { eventually, settled, waitForStatus } from "../client/test-support/wait-for.js";
import { createCollectionHooks, useConflicts, useEntityIds, useSyncStatus, type ConflictsState } from "./index.js";
import { closeDom } from "./test-support/dom-environment.js";
import { renderCounter, renderWith, textOf } from "./test-support/render-client.js";

// The hooks over a client of the real sync server (HTTP, socket.io, the embedded database's change
// streams), in process. Serial: the tests share one document.

let stopApp: (() => Promise<void> | void) | undefined;
const shared = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: {} });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
  await closeDom();
});

type Todo = { id: string; title: string; done: boolean; ownerId?: string };
const todos = createCollectionHooks<Todo>({ collection: "synctodos" });

async function device(t: Parameters<typeof deviceOf>[0]) {
  const { url, socketUrl, signup } = await shared;
  const caller = await signup();
  const db = deviceOf(t, { url: url!, socketUrl: socketUrl! }, caller, { debug: true });
  await db.start();
  await waitForStatus(db, settled);
  return { db, caller };
}

test.serial("a created todo reaches the server; a save by server code re-renders only its row", async (t) => {
  const { db, caller } = await device(t);
  const counter = renderCounter();
  let create: ReturnType<typeof todos.useCreate>[0] | undefined;
  function Row({ id }: { id: string }) {
    counter.hit(id);
    const todo = todos.useRead(id);
    return h("li", { "data-testid": id }, `${todo?.data.title}${todo?.data.done ? " ✓" : ""}${todo?.isPending ? " …" : ""}`);
  }
  function Status() {
    const status = useSyncStatus();
    return h("p", { "data-testid": "status" }, `${status.isOnline ? "online" : "offline"} ${status.queuedCount}`);
  }
  function List() {
    // Ids, not entities: the list itself does not re-render when one todo changes.
    const ids = useEntityIds("synctodos", { sort: "title" });
    [create] = todos.useCreate();
    return h("ul", null, ...ids.map((id) => h(Row, { key: id, id })));
  }
  const view = renderWith(t, db, h("div", null, h(Status), h(List)));
  let first = "";
  let second = "";
  act(() => {
    first = create!({ title: "Apples", done: false }).id;
    second = create!({ title: "Bread", done: false }).id;
  });
  t.is(textOf(view, first), "Apples …");
  await act(() => waitForStatus(db, settled));
  t.is(textOf(view, "status"), "online 0");
  t.is(textOf(view, first), "Apples");
  t.like(await SyncTodo.findById(first).lean(), { title: "Apples", ownerId: caller.id });

  const secondRenders = counter.of(second);
  const firstRenders = counter.of(first);
  const doc = await SyncTodo.findById(first);
  doc!.set({ done: true });
  await act(async () => {
    await doc!.save();
    await eventually(() => db.store.get("synctodos", first)?.data.done === true, () => JSON.stringify({ entity: db.store.get("synctodos", first), status: db.getSyncStatus(), events: db.debug.events.slice(-10) }));
  });
  t.is(textOf(view, first), "Apples ✓");
  t.is(counter.of(first), firstRenders + 1);
  t.is(counter.of(second), secondRenders, "the other row did not render again");
});

test.serial("offline edit against a server change: the conflict shows in useConflicts and keepMine converges", async (t) => {
  const { db } = await device(t);
  let conflicts: ConflictsState | undefined;
  let update: ReturnType<typeof todos.useUpdate>[0] | undefined;
  function Panel({ id }: { id: string }) {
    conflicts = useConflicts();
    [update] = todos.useUpdate();
    const todo = todos.useRead(id);
    return h("p", { "data-testid": "panel" }, `${todo?.data.title}|${conflicts.conflicts.map((conflict) => `${conflict.code}:${String(conflict.serverDoc?.title)}`).join(",")}`);
  }
  const id = uid("todo");
  db.mutate({ collection: "synctodos", operation: "create", id, data: { title: "Original" } });
  await waitForStatus(db, settled);
  const view = renderWith(t, db, h(Panel, { id }));
  act(() => {
    db.goOffline();
    update!(id, { title: "Mine" });
  });
  const doc = await SyncTodo.findById(id);
  doc!.set({ title: "Theirs" });
  await doc!.save();
  await act(async () => {
    db.goOnline();
    await waitForStatus(db, (status) => status.conflictCount === 1);
  });
  t.is(textOf(view, "panel"), "Mine|conflict:Theirs");
  await act(async () => {
    await conflicts!.resolve(conflicts!.conflicts[0]!.mutationId, "keepMine");
    await waitForStatus(db, settled);
  });
  t.is(textOf(view, "panel"), "Mine|");
  t.like(await SyncTodo.findById(id).lean(), { title: "Mine" });
});
