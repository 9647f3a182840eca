import test from "ava";
import { stopTestDatabase } from "../../hosts/testing.js";
import { CLIENT_KINDS, connectMcp, mcpTestApp } from "../../test/support/mcp-test-app.js";

test.after.always(() => stopTestDatabase());

for (const kind of CLIENT_KINDS) {
  test.serial(`${kind} client lists the model and custom tools and calls them`, async (t) => {
    const app = await mcpTestApp(t);
    const client = await connectMcp(kind, app.url, app.owner.token);
    t.teardown(() => client.close());
    const { tools } = await client.listTools();
    t.deepEqual(tools.map((tool) => tool.name).sort(), ["mcp_note_create", "mcp_note_delete", "mcp_note_list", "mcp_note_read", "mcp_note_update", "whoami"]);
    const created = await client.callTool({ name: "mcp_note_create", arguments: { data: { text: "from mcp", priority: 2 } } });
    t.falsy(created.isError, JSON.stringify(created));
    const who = await client.callTool({ name: "whoami", arguments: { greeting: "hi" } });
    t.deepEqual(who.structuredContent, { greeting: "hi", user: app.owner.email });
    const bad = await client.callTool({ name: "whoami", arguments: { greeting: 42 } });
    t.true(bad.isError);
  });
}
