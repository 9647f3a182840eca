import "./test-support/dom-environment.js";
import { act } from "@testing-library/react";
import test from "ava";
import { createElement as h, useEffect, useState } from "react";
import { hasErrorCode } from "../../../kernel/errors.js";
import { createSyncDb, type EntityRead, type SyncDb } from "../client/index.js";
import { eventually, settled, waitForStatus } from "../client/test-support/wait-for.js";
import { createFakeTransport, type FakeTransport } from "../testing/index.js";
import {
  attemptsFor,
  createCollectionHooks,
  SyncReactErrors,
  useConflicts,
  useEntity,
  useEntityIds,
  useMutate,
  useQuery,
  useSyncDbClient,
  useSyncDebugLog,
  useSyncStatus,
  type ConflictsState,
  type MutationResult,
  type SyncDebugLogState,
} from "./index.js";
import { closeDom } from "./test-support/dom-environment.js";
import { fixedAuth, renderCounter, renderWith, textOf } from "./test-support/render-client.js";

// The hooks of svc/sync/react rendered by react-dom (in happy-dom) over a client on the fake
// transport of svc/sync/testing. Serial: the tests share one document.

const STREAM = "todos|owner:fake";
test.after.always(() => closeDom());

async function startedClient(t: { teardown: (fn: () => Promise<void>) => void }, debug = false): Promise<{ db: SyncDb; fake: FakeTransport }> {
  const fake = createFakeTransport();
  const db = createSyncDb({ name: "react", collections: ["todos", "notes"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider: fixedAuth(), debug });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, settled);
  return { db, fake };
}

/** Applies a server change (a delta) inside act() and waits until the store has it. */
async function deliver(db: SyncDb, fake: FakeTransport, id: string, data: Record<string, unknown>, method: "create" | "update" | "delete" = "create", collection = "todos"): Promise<void> {
  const seq = fake.entities(STREAM).length + 1;
  await act(async () => {
    fake.deliverDelta({ collection, id, method, data: { id, ...data }, stream: collection === "todos" ? STREAM : `${collection}|owner:fake` });
    await eventually(() => (db.store.get(collection, id)?.seq ?? 0) >= (collection === "todos" ? seq : 1));
  });
}

test.serial("useEntity re-renders when its entity changes and not when another entity does", async (t) => {
  const { db, fake } = await startedClient(t);
  await deliver(db, fake, "a", { title: "A" });
  await deliver(db, fake, "b", { title: "B" });
  const counter = renderCounter();
  function Row({ id }: { id: string }) {
    counter.hit(id);
    const todo = useEntity<{ title: string }>("todos", id);
    return h("li", { "data-testid": id }, todo?.data.title ?? "missing");
  }
  const view = renderWith(t, db, h("ul", null, h(Row, { id: "a" }), h(Row, { id: "b" }), h(Row, { id: "c" })));
  t.is(textOf(view, "a"), "A");
  t.is(textOf(view, "c"), "missing");
  const before = { a: counter.of("a"), b: counter.of("b"), c: counter.of("c") };

  await deliver(db, fake, "b", { title: "B2" }, "update");
  t.is(textOf(view, "b"), "B2");
  t.is(counter.of("b"), before.b + 1);
  t.is(counter.of("a"), before.a, "a change of b does not re-render a");
  t.is(counter.of("c"), before.c);

  act(() => void db.mutate({ collection: "todos", operation: "create", id: "c", data: { title: "C" } }));
  t.is(textOf(view, "c"), "C");
  t.is(counter.of("c"), before.c + 1);
  t.is(counter.of("a"), before.a);
  // Another collection's entity with the same id is another entity.
  await deliver(db, fake, "a", { text: "note" }, "create", "notes");
  t.is(counter.of("a"), before.a);
});

test.serial("useEntityIds keeps the same array while the ids are the same; useQuery filters, sorts and leaves tombstones out", async (t) => {
  const { db, fake } = await startedClient(t);
  for (const [id, title, done] of [["1", "Walk", false], ["2", "Bread", true], ["3", "Call", false]] as const) await deliver(db, fake, id, { title, done });
  const seen: Array<readonly string[]> = [];
  const queries: Array<readonly EntityRead[]> = [];
  const counter = renderCounter();
  function Ids() {
    counter.hit("ids");
    const ids = useEntityIds("todos", { sort: "title" });
    useEffect(() => void seen.push(ids), [ids]);
    return h("p", { "data-testid": "ids" }, ids.join(","));
  }
  function Open() {
    counter.hit("open");
    // An inline options object each render: it must not start a new watch (or loop).
    const open = useQuery<{ title: string; done: boolean }>("todos", { filter: { done: false }, sort: "-title" });
    useEffect(() => void queries.push(open), [open]);
    return h("p", { "data-testid": "open" }, open.map((todo) => todo.data.title).join(","));
  }
  function All() {
    const all = useQuery("todos", { includeDeleted: true, sort: (a, b) => String(a.title).localeCompare(String(b.title)) });
    return h("p", { "data-testid": "all" }, all.map((todo) => `${String(todo.data.title)}${todo.deleted ? "†" : ""}`).join(","));
  }
  const view = renderWith(t, db, h("div", null, h(Ids), h(Open), h(All)));
  t.is(textOf(view, "ids"), "2,3,1");
  t.is(textOf(view, "open"), "Walk,Call");
  const idsRenders = counter.of("ids");
  const openRenders = counter.of("open");

  // A change that moves no id: same array, no render of the ids list.
  await deliver(db, fake, "3", { title: "Call mum", done: false }, "update");
  t.is(seen.length, 1);
  t.is(counter.of("ids"), idsRenders);
  t.is(textOf(view, "open"), "Walk,Call mum");
  // A change outside the filter (a done todo) leaves the open list as it was: no render.
  const openAfter = counter.of("open");
  await deliver(db, fake, "2", { title: "Brown bread", done: true }, "update");
  t.is(counter.of("open"), openAfter);
  t.true(openAfter > openRenders);

  await deliver(db, fake, "4", { title: "Apples", done: false });
  t.is(textOf(view, "ids"), "4,2,3,1");
  t.is(seen.length, 2);
  await deliver(db, fake, "1", {}, "delete");
  t.is(textOf(view, "ids"), "4,2,3");
  t.is(textOf(view, "open"), "Call mum,Apples");
  t.is(textOf(view, "all"), "Apples,Brown bread,Call mum,Walk†");
  t.is(queries.at(-1)?.length, 2);
});

test.serial("useQuery and useEntityIds follow a filter that changes to {field: undefined} (entities without it) from no filter", async (t) => {
  const { db, fake } = await startedClient(t);
  await deliver(db, fake, "root", { title: "Root" });
  await deliver(db, fake, "child", { title: "Child", parentId: "root" });
  let showRootsOnly: ((only: boolean) => void) | undefined;
  function Tree() {
    const [rootsOnly, setRootsOnly] = useState(false);
    showRootsOnly = setRootsOnly;
    const parentId: string | undefined = undefined;
    const filter = rootsOnly ? { parentId } : {};
    const list = useQuery("todos", { filter, sort: "title" });
    const ids = useEntityIds("todos", { filter, sort: "title" });
    return h("p", { "data-testid": "tree" }, `${list.map((todo) => String(todo.data.title)).join(",")}|${ids.join(",")}`);
  }
  const view = renderWith(t, db, h(Tree));
  t.is(textOf(view, "tree"), "Child,Root|child,root");
  act(() => showRootsOnly!(true));
  t.is(textOf(view, "tree"), "Root|root");
});

test.serial("useMutate applies locally and returns {mutationId, id} synchronously; the change is sent", async (t) => {
  const { db, fake } = await startedClient(t);
  let mutators: ReturnType<typeof useMutate<{ title: string; done: boolean }>> | undefined;
  const results: Array<MutationResult & { visible: boolean }> = [];
  function Editor() {
    mutators = useMutate<{ title: string; done: boolean }>("todos");
    const open = useQuery("todos");
    return h("p", { "data-testid": "list" }, open.map((todo) => `${String(todo.data.title)}:${String(todo.data.done)}`).join(","));
  }
  const view = renderWith(t, db, h(Editor));
  const firstMutators = mutators;
  act(() => {
    const created = mutators!.create({ title: "Milk", done: false });
    // Synchronous: the id is known and the store shows the entity before any render or network.
    results.push({ ...created, visible: db.store.get("todos", created.id)?.data.title === "Milk" });
  });
  const [created] = results;
  t.regex(created!.id, /^[0-9a-f-]{36}$/);
  t.regex(created!.mutationId, /^[0-9a-f-]{36}$/);
  t.true(created!.visible);
  t.is(textOf(view, "list"), "Milk:false");
  t.is(mutators, firstMutators, "the mutators keep their identity across renders");

  act(() => void mutators!.update(created!.id, { done: true }));
  t.is(textOf(view, "list"), "Milk:true");
  act(() => void mutators!.create({ title: "Eggs", done: false }, "eggs"));
  act(() => void mutators!.remove("eggs"));
  t.is(textOf(view, "list"), "Milk:true");
  await act(() => waitForStatus(db, settled));
  // In order per entity (each entity's next change waits for the ack of the one before).
  const sentOf = (id: string) => fake.sent.filter((mutation) => mutation.id === id).map((mutation) => mutation.operation);
  t.deepEqual(sentOf(created!.id), ["create", "update"]);
  t.deepEqual(sentOf("eggs"), ["create", "delete"]);
  t.like(db.store.get("todos", created!.id), { isPending: false, data: { title: "Milk", done: true } });
});

test.serial("useSyncStatus follows the client: offline, queued, back online and drained", async (t) => {
  const { db } = await startedClient(t);
  const counter = renderCounter();
  function Status() {
    counter.hit("status");
    const status = useSyncStatus();
    return h("p", { "data-testid": "status" }, `${status.isOnline ? "online" : "offline"} ${status.queuedCount}`);
  }
  const view = renderWith(t, db, h(Status));
  t.is(textOf(view, "status"), "online 0");
  // The client announces status changes on a microtask: an async act lets it.
  await act(async () => db.goOffline());
  t.is(textOf(view, "status"), "offline 0");
  await act(async () => {
    db.mutate({ collection: "todos", operation: "create", data: { title: "One" } });
    db.mutate({ collection: "notes", operation: "create", data: { text: "Two" } });
  });
  t.is(textOf(view, "status"), "offline 2");
  const renders = counter.of("status");
  await act(async () => {
    db.goOnline();
    await waitForStatus(db, settled);
  });
  t.is(textOf(view, "status"), "online 0");
  t.true(counter.of("status") > renders);
});

test.serial("useConflicts lists a conflict and resolve settles it: keepMine sends again, useServer takes the server's", async (t) => {
  const { db, fake } = await startedClient(t);
  await deliver(db, fake, "x", { title: "Server" });
  await deliver(db, fake, "y", { title: "Server y" });
  let state: ConflictsState | undefined;
  let serverSeqOfX = 0;
  function Panel() {
    state = useConflicts();
    const x = useEntity<{ title: string }>("todos", "x");
    const y = useEntity<{ title: string }>("todos", "y");
    return h("p", { "data-testid": "panel" }, `${state.conflicts.map((conflict) => `${conflict.entityId}:${conflict.code}`).join(",")}|${x?.data.title}|${y?.data.title}`);
  }
  const view = renderWith(t, db, h(Panel));
  t.is(textOf(view, "panel"), "|Server|Server y");
  await act(async () => {
    // Another device changed both on the server meanwhile (this client has not heard yet).
    const x = fake.putEntity(STREAM, "todos", { id: "x", data: { id: "x", title: "Theirs" }, deleted: false });
    const y = fake.putEntity(STREAM, "todos", { id: "y", data: { id: "y", title: "Theirs y" }, deleted: false });
    serverSeqOfX = x.seq;
    fake.queueResponses({ nack: { code: "conflict", serverDoc: x.data, serverSeq: x.seq } }, { nack: { code: "conflict", serverDoc: y.data, serverSeq: y.seq } });
    db.mutate({ collection: "todos", operation: "update", id: "x", data: { title: "Mine" } });
    await waitForStatus(db, (status) => status.conflictCount === 1);
    db.mutate({ collection: "todos", operation: "update", id: "y", data: { title: "Mine y" } });
    await waitForStatus(db, (status) => status.conflictCount === 2);
  });
  t.is(textOf(view, "panel"), "x:conflict,y:conflict|Mine|Mine y");

  const [onX, onY] = state!.conflicts;
  await act(() => state!.resolve(onX!.mutationId, "keepMine"));
  await act(() => state!.resolve(onY!.mutationId, "useServer"));
  await act(() => waitForStatus(db, settled));
  t.is(textOf(view, "panel"), "|Mine|Theirs y");
  const resent = fake.sent.at(-1)!;
  t.like(resent, { id: "x", operation: "update", baseVersion: serverSeqOfX, data: { title: "Mine" } });
  t.like(db.store.get("todos", "x"), { isPending: false, data: { title: "Mine" } });
});

test.serial("useSyncDebugLog shows the engine's events and stats; log and clear re-render", async (t) => {
  const { db } = await startedClient(t, true);
  let debug: SyncDebugLogState | undefined;
  function Debug() {
    debug = useSyncDebugLog();
    return h("p", { "data-testid": "debug" }, `${debug.enabled} ${debug.stats.acks}`);
  }
  const view = renderWith(t, db, h(Debug));
  t.true(debug!.enabled);
  t.true(debug!.events.some((event) => event.type === "started"));
  await act(async () => {
    db.mutate({ collection: "todos", operation: "create", data: { title: "Logged" } });
    await waitForStatus(db, settled);
  });
  t.is(textOf(view, "debug"), "true 1");
  t.true(debug!.events.some((event) => event.type === "mutate"));
  await act(async () => debug!.log("app-note", { where: "test" }));
  t.like(debug!.events.at(-1), { type: "app-note", detail: { where: "test" } });
  // An event recorded with no change to the store or the status (as a skipped malformed delta) shows too.
  await act(async () => db.debug.log("engine-only", { reason: "test" }));
  t.like(debug!.events.at(-1), { type: "engine-only" });
  await act(async () => debug!.clear());
  t.is(debug!.events.length, 0);
  t.is(textOf(view, "debug"), "true 0");
});

test.serial("createCollectionHooks: list, read, create, update and delete hooks; mutation hooks return [trigger]", async (t) => {
  const { db, fake } = await startedClient(t);
  const todos = createCollectionHooks<{ id: string; title: string; done: boolean }>({ collection: "todos" });
  const triggers: { create?: ReturnType<typeof todos.useCreate>[0]; update?: ReturnType<typeof todos.useUpdate>[0]; remove?: ReturnType<typeof todos.useDelete>[0] } = {};
  function App() {
    const list = todos.useList({ sort: "title" });
    const first = todos.useRead(list[0]?.data.id);
    [triggers.create] = todos.useCreate();
    [triggers.update] = todos.useUpdate({ retries: 3 });
    [triggers.remove] = todos.useDelete({ retries: false });
    return h("p", { "data-testid": "app" }, `${list.map((todo) => todo.data.title).join(",")}|${first?.data.title ?? ""}`);
  }
  const view = renderWith(t, db, h(App));
  let ids: string[] = [];
  act(() => {
    ids = [triggers.create!({ title: "Pears", done: false }).id, triggers.create!({ title: "Figs", done: false }).id];
  });
  t.is(textOf(view, "app"), "Figs,Pears|Figs");
  act(() => void triggers.update!(ids[1]!, { title: "Dates" }));
  t.is(textOf(view, "app"), "Dates,Pears|Dates");
  act(() => void triggers.remove!(ids[0]!));
  t.is(textOf(view, "app"), "Dates|Dates");
  await act(() => waitForStatus(db, settled));
  t.deepEqual(fake.sent.map((mutation) => mutation.operation), ["create", "create", "update", "delete"]);
});

test.serial("retries: false is 1 attempt, a number that many, omitted the engine default; anything else is refused", (t) => {
  t.is(attemptsFor(false), 1);
  t.is(attemptsFor(4), 4);
  t.is(attemptsFor(undefined), undefined);
  t.is(createCollectionHooks({ collection: "todos", retries: false }).maxAttempts, 1);
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    t.true(hasErrorCode(t.throws(() => attemptsFor(bad))!, SyncReactErrors.INVALID_RETRIES.code));
  }
});

test.serial("retries reach the client: false fails after one failed send, a hook's own number overrides the collection's, omitted keeps retrying", async (t) => {
  const { db, fake } = await startedClient(t);
  const once = createCollectionHooks<{ title: string }>({ collection: "todos", retries: false });
  const plain = createCollectionHooks<{ text: string }>({ collection: "notes" });
  const triggers: { once?: (data: { title?: string }) => MutationResult; twice?: (data: { title?: string }) => MutationResult; plain?: (data: { text?: string }) => MutationResult } = {};
  function App() {
    [triggers.once] = once.useCreate();
    [triggers.twice] = once.useCreate({ retries: 2 });
    [triggers.plain] = plain.useCreate();
    return null;
  }
  renderWith(t, db, h(App));
  const rowOf = (mutationId: string) => db.outbox.list().find((row) => row.mutationId === mutationId);

  db.goOffline();
  const first = triggers.once!({ title: "once" });
  const second = triggers.twice!({ title: "twice" });
  const third = triggers.plain!({ text: "default" });
  t.like(rowOf(first.mutationId), { maxAttempts: 1 });
  t.like(rowOf(second.mutationId), { maxAttempts: 2 });
  t.is(rowOf(third.mutationId)!.maxAttempts, undefined);

  // Each failed send nacks the next row, so every mutation meets two server errors.
  fake.queueResponses(...Array.from({ length: 6 }, () => ({ nack: { code: "error" as const } })));
  await act(async () => {
    db.goOnline();
    await eventually(() => db.store.get("notes", third.id)?.isPending === false && db.getSyncStatus().failedCount === 2, () => JSON.stringify(db.outbox.list()));
  });
  const sends = (id: string) => fake.sent.filter((mutation) => mutation.id === id).length;
  t.is(sends(first.id), 1);
  t.is(sends(second.id), 2);
  t.is(sends(third.id), 4, "three server errors, then the ack");
  t.like(rowOf(first.mutationId), { status: "failed" });
  t.like(rowOf(second.mutationId), { status: "failed" });
});

test.serial("a hook outside a SyncDbProvider throws SYNC_REACT_NO_PROVIDER; useSyncDbClient gives the provider's client", async (t) => {
  const { db } = await startedClient(t);
  const { render } = await import("@testing-library/react");
  function Orphan() {
    useSyncStatus();
    return null;
  }
  // React reports the error to the console before rethrowing it.
  const original = console.error;
  console.error = () => undefined;
  try {
    t.true(hasErrorCode(t.throws(() => render(h(Orphan)))!, SyncReactErrors.NO_PROVIDER.code));
  } finally {
    console.error = original;
  }
  let got: SyncDb | undefined;
  function Probe() {
    got = useSyncDbClient();
    return null;
  }
  renderWith(t, db, h(Probe));
  t.is(got, db);
});
