/**
 * REST benchmark: the framework's generated read, list (limit 20, with total) and create routes
 * (also with an `Idempotency-Key`, new and replayed) against hand-written express 5 + mongoose
 * routes doing the same work — same authentication
 * middleware, owner filter, soft-delete exclusion, body check, envelope — in the same app, on
 * the same embedded database, in the same run. Requests go over loopback HTTP with keep-alive,
 * a fixed number per measurement at a fixed concurrency; rounds alternate between the two so
 * drift hits both. Prints each ratio (framework / hand-written throughput) against its target.
 *
 * @example
 * npm run bench -- rest
 */
import { randomUUID } from "node:crypto";
import { Agent } from "node:http";
import express, { type Request, type Response } from "express";
import { AUTHENTICATION_MIDDLEWARE, HTTP_ROUTER } from "../contracts/http.js";
import { SvcApp } from "../hosts/svc-app.js";
import type { SvcPlugin } from "../kernel/plugin.js";
import { modelRouter } from "../plugins/rest/model-router.js";
import { OwnerQueryFilter } from "../plugins/rest/owner-query-filter.js";
import { Permissions } from "../plugins/rest/permissions.js";
import { TokenMap } from "../test/support/token-map-authentication.js";
import { send, throughput, type Target } from "./support/http-load.js";
import { benchTodoModel } from "./support/todo-model.js";

const SEEDED = 200;
const CONCURRENCY = 8;
const ROUNDS = 3;
const COUNTS = { read: 1500, list: 600, create: 800, keyed: 800, replay: 800 } as const;
// `keyed`: creates each with a new Idempotency-Key (two more writes: the claim and the stored
// answer); `replay`: the same key again, answered from the stored answer. Both against the
// hand-written create, which has no retry safety at all.
const TARGETS = { read: 0.8, list: 0.7, create: 0.6, keyed: 0.35, replay: 0.6 } as const;

type BenchModel = ReturnType<typeof benchTodoModel>;

/** The same three routes, written by hand the way a careful express + mongoose app would. */
function handWrittenRoutes(Todo: BenchModel): SvcPlugin {
  const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
  const WRITABLE = new Set(["title", "done", "priority"]);
  const fail = (res: Response, status: number, code: string) => res.status(status).json({ errors: [{ status: String(status), title: code, code }] });
  const shape = (doc: Record<string, unknown>) => {
    delete doc.__v;
    doc.id = String(doc._id);
    return doc;
  };
  const router = express.Router();
  router.get("/hand/todos/:id", async (req: Request, res: Response) => {
    if (!req.user) return fail(res, 401, "UNAUTHENTICATED");
    const id = req.params.id as string;
    if (!OBJECT_ID.test(id)) return fail(res, 404, "NOT_FOUND");
    const doc = await Todo.findById(id).lean<Record<string, unknown>>();
    if (!doc) return fail(res, 404, "NOT_FOUND");
    if (String(doc.ownerId) !== req.user.id && !req.user.admin) return fail(res, 403, "FORBIDDEN");
    res.json({ data: shape(doc) });
  });
  router.get("/hand/todos", async (req: Request, res: Response) => {
    if (!req.user) return fail(res, 401, "UNAUTHENTICATED");
    const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
    const page = req.query.page === undefined ? 1 : Number(req.query.page);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500 || !Number.isInteger(page) || page < 1) return fail(res, 400, "INVALID_QUERY");
    const filter = { ownerId: req.user.id };
    const skip = (page - 1) * limit;
    const [docs, total] = await Promise.all([
      Todo.find(filter).sort({ created: -1, _id: 1 }).skip(skip).limit(limit).lean<Record<string, unknown>[]>(),
      Todo.countDocuments(filter),
    ]);
    res.json({ data: docs.map(shape), limit, page, more: skip + docs.length < total, total });
  });
  router.post("/hand/todos", async (req: Request, res: Response) => {
    if (!req.user) return fail(res, 401, "UNAUTHENTICATED");
    const body = req.body as Record<string, unknown>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return fail(res, 400, "INVALID_BODY");
    for (const key of Object.keys(body)) if (!WRITABLE.has(key)) return fail(res, 400, "UNKNOWN_FIELD");
    if (typeof body.title !== "string" || body.title.length > 200) return fail(res, 400, "INVALID_BODY");
    const doc = new Todo({ ...body, ownerId: req.user.id });
    await doc.save();
    const data = doc.toObject({ virtuals: false, versionKey: false }) as Record<string, unknown>;
    data.id = String(data._id);
    res.status(201).json({ data });
  });
  return {
    name: "bench-hand-written",
    dependsOn: ["database"],
    start(ctx) {
      ctx.resolve(HTTP_ROUTER).use(router);
    },
  };
}

export default async function benchRest(): Promise<void> {
  const Todo = benchTodoModel("BenchTodo");
  const tokens = new TokenMap();
  const alice = tokens.user("bench");
  const owner = [Permissions.IsOwner];
  const app = new SvcApp({
    env: { NODE_ENV: "test", DISABLE_LOG_ALL_REQUESTS: "true" },
    database: { dbName: "svc_bench_rest" },
    handleSignals: false,
    port: 0,
    host: "127.0.0.1",
  })
    .register(
      modelRouter("/todos", Todo, {
        permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner },
        queryFilter: OwnerQueryFilter,
      }),
    )
    .register(handWrittenRoutes(Todo))
    .override(AUTHENTICATION_MIDDLEWARE, { useValue: tokens.middleware() });
  const running = await app.start();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const target: Target = { port: running.port, agent, auth: alice.auth };
    const seeded = await Todo.insertMany(
      Array.from({ length: SEEDED }, (_, index) => ({ title: `Seeded ${index}`, priority: (index % 5) + 1, ownerId: alice.user.id })),
    );
    const ids = seeded.map((doc) => String(doc._id));
    const body = JSON.stringify({ title: "Benchmark todo", priority: 3, done: false });
    const workloads = {
      read: { expected: 200, call: (prefix: string) => (index: number) => send(target, "GET", `${prefix}/todos/${ids[index % ids.length]}`) },
      list: { expected: 200, call: (prefix: string) => () => send(target, "GET", `${prefix}/todos?limit=20&page=2`) },
      create: { expected: 201, call: (prefix: string) => () => send(target, "POST", `${prefix}/todos`, body) },
      keyed: { expected: 201, call: (prefix: string) => () => send(target, "POST", `${prefix}/todos`, body, prefix ? {} : { "idempotency-key": randomUUID() }) },
      replay: { expected: 201, call: (prefix: string) => () => send(target, "POST", `${prefix}/todos`, body, prefix ? {} : { "idempotency-key": "bench-replayed-key" }) },
    } as const;

    console.log(`  ${CONCURRENCY} concurrent keep-alive connections, ${ROUNDS} alternating rounds, ${SEEDED} seeded records`);
    for (const name of ["read", "list", "create", "keyed", "replay"] as const) {
      const workload = workloads[name];
      // The replayed key's first answer, stored before the concurrent retries (which would otherwise wait for it).
      if (name === "replay") await workload.call("")(0);
      // Warm both paths (JIT, validator caches, connection pool) before timing.
      await throughput(100, CONCURRENCY, workload.call(""), workload.expected);
      await throughput(100, CONCURRENCY, workload.call("/hand"), workload.expected);
      let framework = 0;
      let hand = 0;
      for (let round = 0; round < ROUNDS; round++) {
        hand += await throughput(COUNTS[name], CONCURRENCY, workload.call("/hand"), workload.expected);
        framework += await throughput(COUNTS[name], CONCURRENCY, workload.call(""), workload.expected);
      }
      const ratio = framework / hand;
      const verdict = ratio >= TARGETS[name] ? "meets" : "MISSES";
      console.log(
        `  ${name.padEnd(7)} framework ${Math.round(framework / ROUNDS).toString().padStart(6)} req/s   hand-written ${Math.round(hand / ROUNDS).toString().padStart(6)} req/s   ratio ${ratio.toFixed(2)} (${verdict} target ${TARGETS[name]})`,
      );
    }
  } finally {
    agent.destroy();
    await Todo.deleteMany({});
    await app.stop();
  }
}

// Run directly: `node --import=tsx bench/rest.ts`.
if (import.meta.url === `file://${process.argv[1]}`) await benchRest();
