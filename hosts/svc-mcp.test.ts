import test from "ava";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { McpDocsErrors } from "./mcp/errors.js";
import { connectHttp, DOCS_CLIENT_KINDS } from "./mcp/test-support/docs-clients.js";
import { checkDocsServer } from "./mcp/test-support/docs-server-checks.js";
import { spawnSvcMcp } from "./mcp/test-support/spawn-svc-mcp.js";
import { runSvcMcp } from "./svc-mcp.js";
import { runBinToExit } from "../test/support/run-bin.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const docsDir = path.join(root, "docs");


async function emptyDir(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "svc-mcp-cwd-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A raw HTTP exchange, for what the clients never send (foreign Host/Origin, GET, other paths). */
function raw(url: string, init: { method: string; path?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: init.path ?? target.pathname, method: init.method, headers: init.headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

// One spawned executable serves every test of this file (processes are costly on a loaded machine).
let server: { url: string; cwd: string } | undefined;
const cleanups: Array<() => unknown> = [];
const registrar = { teardown: (fn: () => unknown) => void cleanups.push(fn) };

test.before(async () => {
  const cwd = await emptyDir(registrar);
  const { url } = await spawnSvcMcp(registrar, cwd, { PORT: "0", MCP_HOST: "127.0.0.1", SVC_MCP_ALLOWED_HOSTS: "docs.example.com" });
  server = { url, cwd };
});
test.after.always(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

for (const kind of DOCS_CLIENT_KINDS) {
  test.serial(`svc-mcp over HTTP with the ${kind} client: every resource, tool and prompt; nothing written`, async (t) => {
    t.timeout(180_000);
    const client = await connectHttp(kind, server!.url);
    t.teardown(() => client.close());
    t.is(client.era(), kind === "pinned" ? "modern" : "legacy");
    await checkDocsServer(t, client, docsDir, { exactTools: true });
    t.deepEqual(await readdir(server!.cwd), [], "the tools wrote no file");
  });
}

test.serial("svc-mcp refuses foreign Host and Origin headers, serves only /mcp, and answers 2025 session operations 405", async (t) => {
  const { url } = server!;
  const port = new URL(url).port;
  const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  t.is((await raw(url, { method: "POST", headers: { ...json, host: `evil.example:${port}` }, body: INITIALIZE })).status, 403);
  t.is((await raw(url, { method: "POST", headers: { ...json, origin: "https://evil.example" }, body: INITIALIZE })).status, 403);
  t.is((await raw(url, { method: "POST", headers: { ...json, host: `docs.example.com:${port}` }, body: INITIALIZE })).status, 200, "a configured name is accepted");
  t.is((await raw(url, { method: "POST", headers: { ...json, origin: `http://localhost:${port}` }, body: INITIALIZE })).status, 200);
  t.is((await raw(url, { method: "POST", path: "/other", headers: json, body: INITIALIZE })).status, 404);
  t.is((await raw(url, { method: "GET", headers: { accept: "text/event-stream" } })).status, 405);
  const garbage = await raw(url, { method: "POST", headers: json, body: "{not json" });
  t.true(garbage.status >= 400 && garbage.status < 500, `malformed JSON is a client error (${garbage.status})`);
});

test.serial("svc-mcp serves the documentation folder named by SVC_MCP_DOCS_DIR", async (t) => {
  const custom = await emptyDir(t);
  await cp(path.join(docsDir, "mcp"), path.join(custom, "mcp"), { recursive: true });
  const running = await runSvcMcp({ PORT: "0", MCP_HOST: "127.0.0.1", SVC_MCP_DOCS_DIR: custom });
  t.teardown(() => running.close());
  const client = await connectHttp("pinned", running.url);
  t.teardown(() => client.close());
  const answer = await client.callTool({ name: "svc_search_docs", arguments: { queries: ["OwnerQueryFilter"] } });
  const text = (answer.content as Array<{ text: string }>)[0]!.text;
  t.regex(text, /<!-- mcp\//, "only the custom folder is indexed");
  t.notRegex(text, /<!-- rest\.md/);
  const guides = await client.callTool({ name: "svc_get_upgrade_guide", arguments: {} });
  t.true(guides.isError, "no upgrades/ folder there");
});

test.serial("svc-mcp refuses to start on a bad PORT or a docs folder without the resource documents", async (t) => {
  const cwd = await emptyDir(t);
  await t.throwsAsync(runSvcMcp({ PORT: "eighty" }), { code: McpDocsErrors.INVALID_PORT.code });
  await t.throwsAsync(runSvcMcp({ PORT: "70000" }), { code: McpDocsErrors.INVALID_PORT.code });
  await t.throwsAsync(runSvcMcp({ PORT: "0", SVC_MCP_DOCS_DIR: cwd }), { code: McpDocsErrors.RESOURCE_DOC_MISSING.code });
  await t.throwsAsync(runSvcMcp({ PORT: "0", SVC_MCP_DOCS_DIR: path.join(cwd, "absent") }), { code: McpDocsErrors.DOCS_DIR_MISSING.code });
});

test.serial("svc-mcp --help prints the environment it reads; any other argument is refused with the usage", async (t) => {
  t.timeout(180_000);
  const help = await runBinToExit("svc-mcp", ["--help"]);
  t.is(help.code, 0);
  for (const variable of ["PORT", "MCP_HOST", "HOST", "SVC_MCP_ALLOWED_HOSTS", "SVC_MCP_DOCS_DIR"]) t.true(help.stdout.includes(variable), variable);
  t.regex(help.stdout, /^usage: svc-mcp/);
  t.is((await runBinToExit("svc-mcp", ["-h"])).code, 0);
  for (const args of [["--port", "9000", "--bogus"], ["serve"]]) {
    const refused = await runBinToExit("svc-mcp", args, { PORT: "0", MCP_HOST: "127.0.0.1" });
    t.is(refused.code, 1, `${args.join(" ")}: ${refused.stdout}${refused.stderr}`);
    t.regex(refused.stderr, /^svc-mcp: .+\nusage: svc-mcp/);
    t.notRegex(refused.stdout, /listening/);
  }
});

test.serial("svc-mcp advertises no listChanged (its lists are fixed), so a subscriptions/listen stream ends at once instead of staying open", async (t) => {
  const running = await runSvcMcp({ PORT: "0", MCP_HOST: "127.0.0.1" });
  t.teardown(() => running.close());
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
  const post = (method: string, params: Record<string, unknown>) =>
    fetch(running.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
    });
  const { result } = (await (await post("server/discover", {})).json()) as { result: { capabilities: Record<string, { listChanged?: boolean }> } };
  for (const kind of ["tools", "resources", "prompts"]) t.not(result.capabilities[kind]?.listChanged, true, kind);
  const listen = await post("subscriptions/listen", { notifications: { toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true } });
  const body = await Promise.race([listen.text(), new Promise<string>((resolve) => setTimeout(() => resolve("still open after 3 s"), 3000))]);
  t.regex(body, /"resultType":"complete"/);
});
