// The demo's admin with its two roles: the full admin role, and support (read everything,
// change only what they own).
import test from "ava";
import request from "supertest";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { bearer, createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { withDemoPlugins } from "./app.js";

test.after.always(() => stopTestDatabase());

test("the admin role sees everything; support reads all todos and changes only its own", async (t) => {
  const app = withDemoPlugins(await createTestApp()).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  const http = await app.build();
  const admin = bearer(await loginAs(app, await createUser(app, { roles: ["admin"] })));
  const support = bearer(await loginAs(app, await createUser(app, { roles: ["support"] })));
  const ada = bearer(await loginAs(app, await createUser(app, { name: "Ada" })));
  const adasTodo = (await request(http).post("/todos").set(ada).send({ title: "buy milk" }).expect(201)).body.data.id as string;

  const full = (await request(http).get("/admin/config").set(admin).expect(200)).body.data;
  t.deepEqual(full.models.map((model: { name: string }) => model.name).sort(), ["AdminAuditLogEntry", "FeatureFlag", "Todo", "User"]);
  t.true(full.platformTools.scripts.visible);
  const roles = (await request(http).get("/admin/roles").set(admin).expect(200)).body.data;
  t.deepEqual(roles.map((role: { name: string }) => role.name), ["admin", "support"]);

  const limited = (await request(http).get("/admin/config").set(support).expect(200)).body.data;
  t.deepEqual(limited.models.map((model: { name: string }) => model.name).sort(), ["Todo", "User"]);
  const found = await request(http).get("/admin/todos?search=milk").set(support).expect(200);
  t.deepEqual(found.body.data.map((todo: { id: string; _adminCapabilities: unknown }) => [todo.id, todo._adminCapabilities]), [[adasTodo, { update: false, delete: false }]]);
  await request(http).patch(`/admin/todos/${adasTodo}`).set(support).send({ done: true }).expect(403);
  const own = (await request(http).post("/admin/todos").set(support).send({ title: "call Ada back" }).expect(201)).body.data.id as string;
  await request(http).patch(`/admin/todos/${own}`).set(support).send({ done: true }).expect(200);
  await request(http).patch(`/admin/todos/${adasTodo}`).set(admin).send({ done: true }).expect(200);
  // Plain users never get in.
  await request(http).get("/admin/config").set(ada).expect(403);

  // The web UI over it (admin-ui.e2e.test.ts drives it in a browser): the page and its script.
  const page = await request(http).get("/admin/").expect(200).expect("content-type", /html/);
  t.regex(page.text, /"signIn":"jwt"/);
  await request(http).get("/admin/ui/main.js").expect(200).expect("content-type", /javascript/);

  // The "Todo stats" custom screen: listed for its permission, its script served, and the route
  // it reads checking the caller with the admin's permissions (other tests of this file add todos
  // at the same time, so only the shape is certain).
  t.deepEqual(full.customScreens.map((screen: { name: string }) => screen.name), ["todo-stats"]);
  t.regex(page.text, /"screenScripts":\["\/admin-screens\/todo-stats\.js"\]/);
  await request(http).get("/admin-screens/todo-stats.js").expect(200).expect("content-type", /javascript/);
  const stats = (await request(http).get("/todo-stats").set(support).expect(200)).body.data;
  t.true([stats.open, stats.done, stats.overdue].every((count) => Number.isInteger(count)) && stats.done >= 2, JSON.stringify(stats));
  await request(http).get("/todo-stats").set(ada).expect(403);
  await request(http).get("/todo-stats").expect(401);
});

/** The demo app, an admin, and Ada with three (synced) todos of hers. */
async function adaWithTodos(t: { teardown: (fn: () => Promise<void>) => void }) {
  const app = withDemoPlugins(await createTestApp()).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  const http = await app.build();
  const admin = bearer(await loginAs(app, await createUser(app, { roles: ["admin"] })));
  const ada = bearer(await loginAs(app, await createUser(app, { name: "Ada" })));
  const ids: string[] = [];
  // Not "milk": the first test searches for it in the same database.
  for (const title of ["water the plants", "walk the dog", "write the docs"]) ids.push((await request(http).post("/todos").set(ada).send({ title }).expect(201)).body.data.id as string);
  return { http, admin, ada, ids };
}

test("an admin's bulk update of synced todos while their owner edits them: every write applies, none is refused as stale", async (t) => {
  const { http, admin, ada, ids } = await adaWithTodos(t);
  const answers = await Promise.all([
    ...Array.from({ length: 3 }, () => request(http).post("/admin/todos/bulk-update").set(admin).send({ ids, data: { done: true } })),
    ...Array.from({ length: 9 }, (_, index) => request(http).patch(`/todos/${ids[index % ids.length]}`).set(ada).send({ title: `edited ${index}` })),
  ]);
  t.deepEqual(answers.filter((answer) => answer.status !== 200).map((answer) => [answer.status, answer.body.errors?.[0]?.code]), []);
  const todos = (await request(http).get("/todos").set(ada).expect(200)).body.data as Array<{ done: boolean; title: string }>;
  t.true(todos.every((todo) => todo.done && todo.title.startsWith("edited")), JSON.stringify(todos));
});

test("an admin's bulk delete of synced todos while their owner edits them: every todo is deleted; an edit after the delete is a 404", async (t) => {
  const { http, admin, ada, ids } = await adaWithTodos(t);
  const [removal, ...edits] = await Promise.all([
    request(http).post("/admin/todos/bulk-delete").set(admin).send({ ids }),
    ...Array.from({ length: 9 }, (_, index) => request(http).patch(`/todos/${ids[index % ids.length]}`).set(ada).send({ title: `edited ${index}` })),
  ]);
  t.is(removal!.status, 200, JSON.stringify(removal!.body));
  t.is(removal!.body.data.count, ids.length);
  t.deepEqual(edits.filter((edit) => edit.status !== 200 && edit.status !== 404).map((edit) => [edit.status, edit.body.errors?.[0]?.code]), []);
  t.deepEqual((await request(http).get("/todos").set(ada).expect(200)).body.data, []);
});
