// The demo's POST /mcp as an AI assistant uses it: the official MCP client, signed in with a real
// token, working on the caller's own todos through the todo tools and the todo_summary tool.
import test from "ava";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { withDemoPlugins } from "./app.js";

test.after.always(() => stopTestDatabase());

test("an assistant lists, creates and changes the caller's todos over MCP, never seeing the owner id", async (t) => {
  const app = withDemoPlugins(await createTestApp({ port: 0 })).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  const running = await app.start();
  const connect = async (token: string) => {
    const client = new Client({ name: "demo-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", running.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    t.teardown(() => client.close());
    return client;
  };
  const ada = await connect(await loginAs(app, await createUser(app, { name: "Ada" })));
  const bob = await connect(await loginAs(app, await createUser(app, { name: "Bob" })));

  const { tools } = await ada.listTools();
  t.deepEqual(tools.map((tool) => tool.name).sort(), ["todo_create", "todo_delete", "todo_list", "todo_read", "todo_summary", "todo_update"]);
  const created = await ada.callTool({ name: "todo_create", arguments: { data: { title: "ask the assistant", dueOn: "2000-01-01", tags: ["mcp"] } } });
  t.falsy(created.isError, JSON.stringify(created));
  const todo = (created.structuredContent as { data: Record<string, unknown> }).data;
  t.like(todo, { title: "ask the assistant", done: false, dueOn: "2000-01-01T00:00:00.000Z", tags: ["mcp"] });
  t.false("ownerId" in todo, "the excluded field is not shown");

  const listed = await ada.callTool({ name: "todo_list", arguments: { filter: { done: false } } });
  t.deepEqual((listed.structuredContent as { data: Array<{ id: string }> }).data.map((item) => item.id), [todo.id]);
  t.deepEqual((await bob.callTool({ name: "todo_list", arguments: {} })).structuredContent, { data: [], limit: 50, page: 1, more: false, total: 0 });
  t.true((await bob.callTool({ name: "todo_update", arguments: { id: todo.id, data: { done: true } } })).isError, "not Bob's");
  t.true((await ada.callTool({ name: "todo_update", arguments: { id: todo.id, data: { ownerId: "0123456789abcdef01234567" } } })).isError, "the excluded field is not accepted");

  t.deepEqual((await ada.callTool({ name: "todo_summary", arguments: {} })).structuredContent, { total: 1, done: 0, open: 1, overdue: 1 });
  t.falsy((await ada.callTool({ name: "todo_update", arguments: { id: todo.id, data: { done: true } } })).isError);
  t.deepEqual((await ada.callTool({ name: "todo_summary", arguments: {} })).structuredContent, { total: 1, done: 1, open: 0, overdue: 0 });
  t.deepEqual((await bob.callTool({ name: "todo_summary", arguments: {} })).structuredContent, { total: 0, done: 0, open: 0, overdue: 0 });
});
