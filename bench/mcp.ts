/**
 * MCP benchmarks.
 *
 * 1. `tools/call` of a model's list tool against the REST list route of the same model, in the
 *    same app and run: both run the router's one list operation (permissions, owner filter, list
 *    query, count and page, response shaping); MCP adds the protocol (a server instance per
 *    request, argument check, JSON-RPC envelope). The MCP request is exactly what the official
 *    v2 client (pinned to 2026-07-28) sends — recorded once, then replayed with fresh ids over the
 *    same keep-alive HTTP agent as REST's, so client libraries do not skew the ratio; both sides
 *    read their whole answer and check it is a page of records. Rounds alternate; the ratio (MCP / REST throughput) is what to compare (target ≥ 0.7).
 *
 * The docs search of the svc-mcp servers is measured by bench/mcp-docs.ts.
 *
 * @example
 * npm run bench -- mcp
 */
import { Agent, request as httpRequest } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AUTHENTICATION_MIDDLEWARE } from "../contracts/http.js";
import { SvcApp } from "../hosts/svc-app.js";
import { modelRouter } from "../plugins/rest/model-router.js";
import { OwnerQueryFilter } from "../plugins/rest/owner-query-filter.js";
import { Permissions } from "../plugins/rest/permissions.js";
import { TokenMap } from "../test/support/token-map-authentication.js";
import { discardingLogger } from "./support/discarding-logger.js";
import { throughput, type Target } from "./support/http-load.js";
import { benchTodoModel } from "./support/todo-model.js";

// ---------------------------------------------------------------------------------------------
// 1. tools/call (model list tool) vs the REST list route
// ---------------------------------------------------------------------------------------------

const SEEDED = 200;
const CONCURRENCY = 8;
const ROUNDS = 6;
const CALLS = 300;
const TOOLS_CALL_TARGET = 0.7;

/** What the official client sends for one `tools/call`, to replay. */
interface RecordedCall {
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

/** Connects the official v2 client and records the headers and body of its `tools/call`. */
async function recordToolsCall(url: URL, auth: string, name: string, args: Record<string, unknown>): Promise<RecordedCall> {
  let recorded: RecordedCall | undefined;
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    const text = typeof init?.body === "string" ? init.body : undefined;
    if (text?.includes('"tools/call"')) {
      recorded = { headers: Object.fromEntries(new Headers(init?.headers).entries()), body: JSON.parse(text) as Record<string, unknown> };
    }
    return fetch(input, init);
  };
  const client = new Client({ name: "svc-bench", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: auth } }, fetch: recording }));
  const result = await client.callTool({ name, arguments: args });
  await client.close();
  if (result.isError || !recorded) throw new Error(`the benchmark's tools/call failed: ${JSON.stringify(result)}`);
  return recorded;
}

/** Sends one request and resolves with its status and body (both sides read and check their answer alike). */
function exchange(target: Target, method: string, path: string, headers: Record<string, string | number>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: target.port, method, path, agent: target.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The REST list; resolves with 200 only when the answer is a page of records. */
async function restList(target: Target, path: string): Promise<number> {
  const { status, text } = await exchange(target, "GET", path, { authorization: target.auth });
  return status === 200 && text.includes('"data":[{') ? 200 : status + 1000;
}

/** Replays a recorded `tools/call` with a fresh id; resolves with 200 only when the result is a page of records, not a tool error. */
async function replay(target: Target, call: RecordedCall, id: number): Promise<number> {
  const body = JSON.stringify({ ...call.body, id });
  const { status, text } = await exchange(target, "POST", "/mcp", { ...call.headers, "content-length": Buffer.byteLength(body) }, body);
  return status === 200 && text.includes('"structuredContent":{"data":[{') && !text.includes('"isError":true') ? 200 : status + 1000;
}

async function benchToolsCallVsRest(): Promise<void> {
  const Note = benchTodoModel("McpBenchNote");
  const tokens = new TokenMap();
  const owner = tokens.user("mcp-bench");
  const logger = discardingLogger();
  const app = new SvcApp({ env: { NODE_ENV: "test", DISABLE_LOG_ALL_REQUESTS: "true" }, database: { dbName: "svc_bench_mcp" }, handleSignals: false, port: 0, logger })
    .register(
      modelRouter("/notes", Note, {
        permissions: { list: [Permissions.IsAuthenticated], read: [Permissions.IsOwner] },
        queryFilter: OwnerQueryFilter,
        queryFields: ["done", "priority"],
        mcp: { methods: ["list", "read"] },
      }),
    )
    .override(AUTHENTICATION_MIDDLEWARE, { useValue: tokens.middleware() });
  const running = await app.start();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    await Note.deleteMany({});
    await Note.insertMany(Array.from({ length: SEEDED }, (_, index) => ({ title: `note ${index}`, done: index % 3 === 0, priority: (index % 5) + 1, ownerId: owner.user.id })));
    const target: Target = { port: running.port, agent, auth: owner.auth };
    const call = await recordToolsCall(new URL("/mcp", running.url), owner.auth, "mcp_bench_note_list", { limit: 20, page: 2 });
    const viaRest = () => restList(target, "/notes?limit=20&page=2");
    const viaMcp = (index: number) => replay(target, call, index + 10);

    await throughput(150, CONCURRENCY, viaRest, 200);
    await throughput(150, CONCURRENCY, viaMcp, 200);
    let rest = 0;
    let mcp = 0;
    for (let round = 0; round < ROUNDS; round++) {
      rest += await throughput(CALLS, CONCURRENCY, viaRest, 200);
      mcp += await throughput(CALLS, CONCURRENCY, viaMcp, 200);
    }
    const ratio = mcp / rest;
    console.log(`list of 20 (page 2 of ${SEEDED}): REST ${(rest / ROUNDS).toFixed(0)} req/s, MCP tools/call ${(mcp / ROUNDS).toFixed(0)} req/s`);
    console.log(`  ratio MCP / REST = ${ratio.toFixed(2)} (target ≥ ${TOOLS_CALL_TARGET}) ${ratio >= TOOLS_CALL_TARGET ? "ok" : "BELOW TARGET"}`);
  } finally {
    agent.destroy();
    await app.stop();
  }
}

export default async function benchMcp(): Promise<void> {
  await benchToolsCallVsRest();
}

// Run directly: `node --import=tsx bench/mcp.ts`.
if (import.meta.url === `file://${process.argv[1]}`) await benchMcp();
