// A throttled model router's MCP tools spend the REST routes' budget: the tools run the router's
// own operations, so an AI client gets no side door around `throttle`. Custom tools take a
// `throttle` of their own.
import test from "ava";
import { createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { HttpErrors, modelRouter, OwnerQueryFilter, Permissions, ThrottleErrors } from "../../index.js";
import { authTestApp } from "../../test/support/auth-test-app.js";
import { connectMcp, McpNote } from "../../test/support/mcp-test-app.js";
import { mcpTool } from "./index.js";

test.after.always(() => stopTestDatabase());

test("REST creates and the create tool share one budget; the tool's refusal carries the REST error", async (t) => {
  const base = await authTestApp(t, {}, {}, (app) =>
    app.register(
      modelRouter("/throttled-notes", McpNote, {
        permissions: { list: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated], read: [Permissions.IsOwner] },
        queryFilter: OwnerQueryFilter,
        throttle: { create: "2/minute" },
        mcp: { methods: ["list", "create", "read"] },
      }),
    ),
    { port: 0 },
  );
  const running = await base.app.start();
  const account = await createUser(base.app, {});
  const token = await loginAs(base.app, account);
  const client = await connectMcp("pinned", new URL("/mcp", running.url), token);
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  const create = tools.find((tool) => tool.name.endsWith("_create"))!.name;

  const restCreate = () =>
    fetch(new URL("/throttled-notes", running.url), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "over REST" }),
    });
  t.is((await restCreate()).status, 201);
  const allowed = await client.callTool({ name: create, arguments: { data: { text: "over MCP" } } });
  t.falsy(allowed.isError, JSON.stringify(allowed));

  const refused = await client.callTool({ name: create, arguments: { data: { text: "one too many" } } });
  t.true(refused.isError);
  const error = (refused.structuredContent as { errors: Array<{ status: string; code: string; meta: { retryAfterSeconds: number } }> }).errors[0]!;
  t.is(error.status, "429");
  t.is(error.code, HttpErrors.RATE_LIMITED.code);
  t.true(error.meta.retryAfterSeconds >= 1);
  const overRest = await restCreate();
  t.is(overRest.status, 429);
  t.truthy(overRest.headers.get("retry-after"));
  t.is(await McpNote.countDocuments({ ownerId: account.id, text: "one too many" }), 0);
  // Listing has no budget: the tool still answers.
  t.falsy((await client.callTool({ name: tools.find((tool) => tool.name.endsWith("_list"))!.name, arguments: {} })).isError);
});

test("a custom tool's throttle refuses the call before its handler runs", async (t) => {
  let handled = 0;
  const base = await authTestApp(t, {}, {}, (app) =>
    app.register(
      mcpTool({
        name: "costly_summary",
        description: "Summarises the caller's notes with a paid model",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        throttle: { user: "1/hour", anonymous: "1/hour" },
        handler: () => ({ summary: `call ${++handled}` }),
      }),
    ),
    { port: 0 },
  );
  const running = await base.app.start();
  const token = await loginAs(base.app, await createUser(base.app, {}));
  const client = await connectMcp("pinned", new URL("/mcp", running.url), token);
  t.teardown(() => client.close());
  t.falsy((await client.callTool({ name: "costly_summary", arguments: {} })).isError);
  const refused = await client.callTool({ name: "costly_summary", arguments: {} });
  t.true(refused.isError);
  t.is((refused.structuredContent as { errors: Array<{ code: string }> }).errors[0]!.code, HttpErrors.RATE_LIMITED.code);
  t.is(handled, 1);
});

test("a custom tool with a malformed throttle stops the app's start", async (t) => {
  const app = (await createTestApp()).register(
    mcpTool({ name: "bad_rate", description: "Never served", inputSchema: { type: "object" }, throttle: "10/fortnight", handler: () => "no" }),
  );
  const error = await t.throwsAsync(app.build());
  t.is((error as { code?: string }).code, ThrottleErrors.INVALID_RATE.code);
  t.regex(error.message, /MCP tool "bad_rate": throttle: "10\/fortnight" is not a rate/);
});
