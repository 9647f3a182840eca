import test from "ava";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connectStdio, DOCS_CLIENT_KINDS } from "./mcp/test-support/docs-clients.js";
import { checkDocsServer } from "./mcp/test-support/docs-server-checks.js";
import { runBinToExit } from "../test/support/run-bin.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const docsDir = path.join(root, "docs");

const RUNTIME_TOOLS = ["application_info", "database_schema", "database_query", "read_logs", "last_error", "get_rtk_state", "evaluate", "navigate"];

// Serial: each client spawns the executable (the pinned one twice: its era probe runs on a sibling process).
for (const kind of DOCS_CLIENT_KINDS) {
  test.serial(`svc-mcp-local over stdio with the ${kind} client: every resource, tool and prompt; runtime tools listed; nothing written`, async (t) => {
    t.timeout(180_000);
    const cwd = await mkdtemp(path.join(tmpdir(), "svc-mcp-local-cwd-"));
    t.teardown(() => rm(cwd, { recursive: true, force: true }));
    const client = await connectStdio(kind, { cwd });
    t.teardown(() => client.close());
    t.is(client.era(), kind === "pinned" ? "modern" : "legacy", "the era is negotiated per connection");
    await checkDocsServer(t, client, docsDir, { exactTools: false });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of RUNTIME_TOOLS) t.true(names.includes(name), `${name} listed`);
    t.is(names.length, 11 + RUNTIME_TOOLS.length);
    t.deepEqual(await readdir(cwd), [], "the tools wrote no file");
  });
}

test.serial("svc-mcp-local exits with the reason when its docs folder lacks the resource documents", async (t) => {
  t.timeout(120_000);
  const empty = await mkdtemp(path.join(tmpdir(), "svc-mcp-local-docs-"));
  t.teardown(() => rm(empty, { recursive: true, force: true }));
  const error = await t.throwsAsync(connectStdio("sdk1", { cwd: empty, env: { SVC_MCP_DOCS_DIR: empty } }));
  t.truthy(error, "the client cannot connect to a server that refused to start");
});

test.serial("svc-mcp-local --help prints the environment it reads; any other argument is refused with the usage", async (t) => {
  t.timeout(180_000);
  const help = await runBinToExit("svc-mcp-local", ["--help"]);
  t.is(help.code, 0);
  for (const variable of ["SVC_MCP_DOCS_DIR", "SVC_MCP_EVAL", "NODE_ENV", "DB_URI", "DB_CONNECTION", "SVC_LOG_DIR", "SVC_MCP_CDP_URL", "SVC_MCP_CHROMIUM"]) {
    t.true(help.stdout.includes(variable), variable);
  }
  t.regex(help.stdout, /^usage: svc-mcp-local/);
  t.is((await runBinToExit("svc-mcp-local", ["-h"])).code, 0);
  // stdin stays open: without the check the server would wait for a client instead of exiting.
  const refused = await runBinToExit("svc-mcp-local", ["--bogus"]);
  t.is(refused.code, 1, refused.stderr);
  t.regex(refused.stderr, /^svc-mcp-local: .*--bogus.*\nusage: svc-mcp-local/);
  t.is(refused.stdout, "", "nothing on the protocol stream");
});
