/**
 * Throttle benchmark: what a router's `throttle` costs per request. One model served twice in the
 * same app — `/todos` without a throttle, `/throttled-todos` with `all` and a per-method budget
 * (two budgets spent per request) too large to refuse anything — read and list at a fixed
 * concurrency over keep-alive loopback HTTP, rounds alternating. Run twice: budgets in memory
 * (the default), then in Redis (`CACHE_URL`, a local redis-server started for the run: a round
 * trip per budget). Prints the ratio throttled / unthrottled throughput (target ≥ 0.9 in memory:
 * a throttle must cost little next to the request it guards; Redis is reported, not targeted).
 *
 * @example
 * npm run bench -- throttle
 */
import { Agent } from "node:http";
import { AUTHENTICATION_MIDDLEWARE } from "../contracts/http.js";
import { SvcApp } from "../hosts/svc-app.js";
import { modelRouter } from "../plugins/rest/model-router.js";
import type { ModelRouterOptions } from "../plugins/rest/model-router-options.js";
import { OwnerQueryFilter } from "../plugins/rest/owner-query-filter.js";
import { Permissions } from "../plugins/rest/permissions.js";
import { startTestRedis } from "../test/support/redis-server.js";
import { TokenMap } from "../test/support/token-map-authentication.js";
import { send, throughput, type Target } from "./support/http-load.js";
import { benchTodoModel, type BenchTodo } from "./support/todo-model.js";

const SEEDED = 200;
const CONCURRENCY = 8;
const ROUNDS = 4;
const COUNTS = { read: 1500, list: 600 } as const;
const TARGET = 0.9;

export default async function benchThrottle(): Promise<void> {
  console.log("  budgets in memory");
  await measure({}, TARGET);
  const redis = await startTestRedis();
  try {
    console.log("  budgets in Redis (CACHE_URL)");
    await measure({ CACHE_URL: redis.url });
  } finally {
    await redis.stop();
  }
}

async function measure(env: Record<string, string>, goal?: number): Promise<void> {
  const Todo = benchTodoModel("BenchThrottleTodo");
  const tokens = new TokenMap();
  const alice = tokens.user("bench");
  const owner = [Permissions.IsOwner];
  const options: ModelRouterOptions<BenchTodo> = {
    permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner },
    queryFilter: OwnerQueryFilter,
  };
  const app = new SvcApp({ env: { NODE_ENV: "test", DISABLE_LOG_ALL_REQUESTS: "true", ...env }, database: { dbName: "svc_bench_throttle" }, handleSignals: false, port: 0, host: "127.0.0.1" })
    .register(modelRouter("/todos", Todo, options))
    .register(modelRouter("/throttled-todos", Todo, { ...options, throttle: { all: "100000000/minute", read: "100000000/minute", list: "100000000/minute" } }))
    .override(AUTHENTICATION_MIDDLEWARE, { useValue: tokens.middleware() });
  const running = await app.start();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const target: Target = { port: running.port, agent, auth: alice.auth };
    const seeded = await Todo.insertMany(Array.from({ length: SEEDED }, (_, index) => ({ title: `Seeded ${index}`, priority: (index % 5) + 1, ownerId: alice.user.id })));
    const ids = seeded.map((doc) => String(doc._id));
    const workloads = {
      read: (path: string) => (index: number) => send(target, "GET", `${path}/${ids[index % ids.length]}`),
      list: (path: string) => () => send(target, "GET", `${path}?limit=20&page=2`),
    } as const;
    console.log(`    ${CONCURRENCY} concurrent keep-alive connections, ${ROUNDS} alternating rounds; two budgets spent per throttled request`);
    for (const name of ["read", "list"] as const) {
      await throughput(100, CONCURRENCY, workloads[name]("/todos"), 200);
      await throughput(100, CONCURRENCY, workloads[name]("/throttled-todos"), 200);
      let plain = 0;
      let throttled = 0;
      for (let round = 0; round < ROUNDS; round++) {
        plain += await throughput(COUNTS[name], CONCURRENCY, workloads[name]("/todos"), 200);
        throttled += await throughput(COUNTS[name], CONCURRENCY, workloads[name]("/throttled-todos"), 200);
      }
      const ratio = throttled / plain;
      const verdict = goal === undefined ? "" : ` (${ratio >= goal ? "meets" : "MISSES"} target ${goal})`;
      console.log(`    ${name.padEnd(5)} throttled ${Math.round(throttled / ROUNDS).toString().padStart(6)} req/s   unthrottled ${Math.round(plain / ROUNDS).toString().padStart(6)} req/s   ratio ${ratio.toFixed(2)}${verdict}`);
    }
  } finally {
    agent.destroy();
    await Todo.deleteMany({});
    await app.stop();
  }
}

// Run directly: `node --import=tsx bench/throttle.ts`.
if (import.meta.url === `file://${process.argv[1]}`) await benchThrottle();
