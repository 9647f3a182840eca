/**
 * Documentation search of the svc MCP servers (`svc_search_docs`), all measured in the same run
 * over the same 100 queries (the docs' own headings, so every query has real hits):
 * 1. in process: the minisearch index + token budgeting (tokenizer-counted, default 3000) against
 *    a naive baseline — a case-insensitive substring scan of every section with the same budgeting;
 * 2. over MCP: `tools/call svc_search_docs` on a running `svc-mcp` (HTTP, 2026-07-28 client) against
 *    `resources/read svc://docs/overview` on the same server (the protocol's own cost).
 * Reports p50/p95 latency and ratios (baseline p95 / measured p95: above 1 is faster).
 *
 * @example
 * npm run bench -- mcp-docs
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { countTokens } from "gpt-tokenizer";
import { loadDocsContext } from "../hosts/mcp/docs-server.js";
import { resolveDocsDir } from "../hosts/mcp/docs-location.js";
import { DEFAULT_TOKEN_LIMIT } from "../hosts/mcp/docs-search.js";
import type { DocSection } from "../hosts/mcp/docs-library.js";
import { runSvcMcp } from "../hosts/svc-mcp.js";

const QUERIES = 100;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function latencies(queries: readonly string[], run: (query: string) => unknown): Promise<number[]> {
  for (const query of queries.slice(0, 10)) await run(query); // warm up
  const samples: number[] = [];
  for (const query of queries) {
    const started = process.hrtime.bigint();
    await run(query);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return samples;
}

/** The baseline: what a search without an index does — scan every section for the words. */
function naiveSearch(sections: readonly DocSection[], query: string, budget: number): string {
  const words = query.toLowerCase().split(/\W+/).filter((word) => word.length > 2);
  const scored = sections
    .map((section) => ({ section, score: words.filter((word) => section.text.toLowerCase().includes(word)).length }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score);
  const parts: string[] = [];
  let tokens = 0;
  for (const { section } of scored) {
    const cost = countTokens(section.text);
    if (tokens + cost > budget) continue;
    parts.push(section.text);
    tokens += cost;
  }
  return parts.join("\n\n");
}

const line = (label: string, samples: number[]): string =>
  `${label.padEnd(46)} p50 ${percentile(samples, 50).toFixed(2).padStart(7)} ms   p95 ${percentile(samples, 95).toFixed(2).padStart(7)} ms`;

export default async function benchMcpDocs(): Promise<void> {
  const context = await loadDocsContext(resolveDocsDir());
  const titles = [...new Set(context.library.sections.map((section) => section.title.split(" › ").at(-1)!.replace(/[`*]/g, "")))];
  const queries = Array.from({ length: QUERIES }, (_, i) => titles[(i * 7) % titles.length]!);
  console.log(`${queries.length} queries over ${context.library.sections.length} sections, tokenLimit ${DEFAULT_TOKEN_LIMIT}`);

  const indexed = await latencies(queries, (query) => context.search.search({ queries: [query] }));
  const naive = await latencies(queries, (query) => naiveSearch(context.library.sections, query, DEFAULT_TOKEN_LIMIT));
  console.log(line("in process: minisearch + budget", indexed));
  console.log(line("in process: substring scan + budget (baseline)", naive));
  console.log(`ratio (baseline p95 / indexed p95): ${(percentile(naive, 95) / percentile(indexed, 95)).toFixed(2)}x`);

  const server = await runSvcMcp({ PORT: "0", MCP_HOST: "127.0.0.1" });
  const client = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  try {
    const overMcp = await latencies(queries, (query) => client.callTool({ name: "svc_search_docs", arguments: { queries: [query] } }));
    const read = await latencies(queries, () => client.readResource({ uri: "svc://docs/overview" }));
    console.log(line("over MCP: tools/call svc_search_docs", overMcp));
    console.log(line("over MCP: resources/read overview (baseline)", read));
    console.log(`search p95 over MCP: ${percentile(overMcp, 95).toFixed(2)} ms; ratio (resources/read p95 / search p95): ${(percentile(read, 95) / percentile(overMcp, 95)).toFixed(2)}x`);
  } finally {
    await client.close();
    await server.close();
  }
}
