/**
 * Admin benchmark: the admin's list (limit 50, sorted, with a search term, `_adminCapabilities`
 * per record) against the REST list of the same model (limit 50, sorted) in the same app, on the
 * same embedded database, in the same run. The admin list is a REST list underneath; this shows
 * what the admin's access checks, search filter and per-record capabilities cost. Requests go
 * over loopback HTTP with keep-alive, a fixed number per measurement at a fixed concurrency;
 * rounds alternate so drift hits both. Prints the ratio (admin / REST throughput) against its target.
 *
 * @example
 * npm run bench -- admin
 */
import { Agent } from "node:http";
import mongoose from "mongoose";
import { AUTHENTICATION_MIDDLEWARE } from "../contracts/http.js";
import { SvcApp } from "../hosts/svc-app.js";
import { adminPlugin } from "../plugins/admin/index.js";
import { defaultPlugins, modelRouter, OwnerQueryFilter, Permissions } from "../plugins/rest/index.js";
import { TokenMap } from "../test/support/token-map-authentication.js";
import { send, throughput, type Target } from "./support/http-load.js";

const SEEDED = 500;
const CONCURRENCY = 8;
const ROUNDS = 3;
const COUNT = 400;
const TARGET = 0.8;

interface BenchNote {
  title: string;
  body?: string;
  done?: boolean;
  ownerId?: mongoose.Types.ObjectId;
}

type BenchModel = mongoose.Model<BenchNote>;

function benchModel(): BenchModel {
  if (mongoose.models.BenchAdminNote) return mongoose.models.BenchAdminNote as BenchModel;
  const schema = new mongoose.Schema<BenchNote>(
    {
      title: { type: String, required: true, maxlength: 200, description: "Title" },
      body: { type: String, maxlength: 2000, description: "Text" },
      done: { type: Boolean, default: false, description: "Whether it is done" },
      ownerId: { type: mongoose.Schema.Types.ObjectId, index: true, description: "Owner" },
    },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  );
  schema.plugin(defaultPlugins);
  return mongoose.model<BenchNote>("BenchAdminNote", schema);
}

export default async function benchAdmin(): Promise<void> {
  const Note = benchModel();
  const tokens = new TokenMap();
  const admin = tokens.user("bench-admin", { admin: true });
  const owner = [Permissions.IsOwner];
  const app = new SvcApp({
    env: { NODE_ENV: "test", DISABLE_LOG_ALL_REQUESTS: "true" },
    database: { dbName: "svc_bench_admin" },
    handleSignals: false,
    port: 0,
    host: "127.0.0.1",
  })
    .register(modelRouter("/notes", Note, { permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner }, queryFilter: OwnerQueryFilter }))
    .register(adminPlugin({ models: [{ model: Note, routePath: "/notes", displayName: "Notes", listFields: ["title", "done", "created"] }] }))
    .override(AUTHENTICATION_MIDDLEWARE, { useValue: tokens.middleware() });
  const running = await app.start();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const target: Target = { port: running.port, agent, auth: admin.auth };
    // Every record is the admin's, so both lists page through the same 500; a third match the search.
    await Note.insertMany(
      Array.from({ length: SEEDED }, (_, index) => ({ title: `${index % 3 === 0 ? "Groceries" : "Chores"} ${index}`, body: "Some text", ownerId: admin.user.id })),
    );
    const rest = () => send(target, "GET", "/notes?limit=50&sort=-created");
    const adminList = () => send(target, "GET", "/admin/notes?limit=50&sort=-created&search=grocer");

    console.log(`  ${CONCURRENCY} concurrent keep-alive connections, ${ROUNDS} alternating rounds, ${SEEDED} seeded records`);
    await throughput(100, CONCURRENCY, rest, 200);
    await throughput(100, CONCURRENCY, adminList, 200);
    let restTotal = 0;
    let adminTotal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      restTotal += await throughput(COUNT, CONCURRENCY, rest, 200);
      adminTotal += await throughput(COUNT, CONCURRENCY, adminList, 200);
    }
    const ratio = adminTotal / restTotal;
    const verdict = ratio >= TARGET ? "meets" : "MISSES";
    console.log(
      `  list    admin ${Math.round(adminTotal / ROUNDS).toString().padStart(6)} req/s   REST ${Math.round(restTotal / ROUNDS).toString().padStart(6)} req/s   ratio ${ratio.toFixed(2)} (${verdict} target ${TARGET})`,
    );
  } finally {
    agent.destroy();
    await Note.deleteMany({});
    await app.stop();
  }
}

// Run directly: `node --import=tsx bench/admin.ts`.
if (import.meta.url === `file://${process.argv[1]}`) await benchAdmin();
