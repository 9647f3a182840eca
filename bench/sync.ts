/**
 * Sync benchmark (issue 13), each side against a bare baseline measured in the same run, on the
 * same embedded database and machine, with the same socket.io client settings (websocket
 * transport, no reconnection):
 * (a) `sync:mutate` create round trip (awaited ack) vs a bare socket.io handler doing one driver
 *     `insertOne` of the same document and acking — target ≤ 2× at p95. That baseline does a
 *     quarter of the work a synced create must do, so the same samples are also compared with
 *     (a') a bare socket.io handler doing that work by hand with the driver — one transaction that
 *     draws the stream's seq from a counter, inserts the document with it, records the mutation id
 *     (unique) and commits — which measures what the framework adds (docs/decisions.md, "Sync
 *     benchmark baselines");
 * (b) fan-out of one write to 100 subscribed sockets (broadcast scope; from `save()` until all
 *     100 got the `sync:delta`) vs a bare socket.io room broadcast of the same payload to 100
 *     clients — target ≤ 1.5× at p99; (b') the same fan-outs timed from the write's commit, when
 *     both sides have the change to send;
 * (c) snapshot catch-up of 5,000 documents by 20 concurrent clients (`GET /sync/snapshot`,
 *     limit 1000, from cursor 0 until `hasMore` is false) vs 20 concurrent driver reads of the
 *     same documents sorted by `_syncSeq` and `JSON.stringify`d — target ≥ 0.7× throughput.
 * Samples alternate between the sides in rounds, so drift on a shared machine hits both.
 * Everything runs in this one process — the embedded engine, the app, the bare server and the
 * clients — so each side's time is mostly CPU spent here: a database command costs its encoding
 * and decoding on both ends of the wire, and the number of commands per operation shows.
 *
 * @example
 * npm run bench -- sync
 */
import { randomUUID } from "node:crypto";
import { Agent, createServer, request as httpRequest, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MongoClient } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { Server as SocketIoServer } from "socket.io";
import { io as connectSocket, type Socket } from "socket.io-client";
import { createTestApp, createUser, loginAs, startTestDatabase, stopTestDatabase } from "../hosts/testing.js";
import { authPlugin, baseUserPlugin, createScryptHasher, isDeletedPlugin, isDisabledPlugin, modelRouter, PASSWORD_HASHER, Permissions } from "../index.js";
import { realtimeApp, syncApp, syncPlugin, type SyncDelta } from "../plugins/sync/index.js";

const MUTATE = { warmup: 50, rounds: 6, perRound: 50 } as const; // 300 samples per side
const FANOUT = { clients: 100, warmup: 10, rounds: 12, perRound: 25 } as const; // 300 samples per side: a p99 of 100 is its second-largest sample
const SNAPSHOT = { documents: 5_000, clients: 20, limit: 1_000, rounds: 5 } as const;
const USERS = 20;
const TARGETS = { mutateP95: 2, fanoutP99: 1.5, snapshotThroughput: 0.7 } as const;
/** `SYNC_BENCH_PARTS=ac npm run bench -- sync` runs only those parts (all three by default). */
const PARTS = process.env.SYNC_BENCH_PARTS ?? "abc";

const OPTIONS = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };

function syncedModel(name: string, fields: Record<string, unknown>): mongoose.Model<Record<string, unknown>> {
  const existing = mongoose.models[name] as mongoose.Model<Record<string, unknown>> | undefined;
  if (existing) return existing;
  const schema = new Schema({ _id: { type: String, description: "Client-minted id" }, ...fields }, OPTIONS);
  schema.plugin(isDeletedPlugin);
  schema.plugin(syncPlugin);
  return mongoose.model<Record<string, unknown>>(name, schema);
}

/** The user model (the demo's shape): the auth plugin's schema plugins and a display name. */
function userModel() {
  if (mongoose.models.BenchSyncUser) return mongoose.models.BenchSyncUser;
  const schema = new Schema({ name: { type: String, description: "Display name" } }, OPTIONS);
  schema.plugin(baseUserPlugin);
  schema.plugin(isDisabledPlugin);
  return mongoose.model("BenchSyncUser", schema);
}

// --- measurement helpers ---------------------------------------------------------------------

interface Percentiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

/** Nearest-rank percentiles of `samples` (ms). */
function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

const ms = (value: number) => value.toFixed(2).padStart(8);
const now = () => performance.now();
/** Fails a sample that never completes (a lost ack or delta) instead of hanging the bench. */
const WAIT_MS = 15_000;

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${WAIT_MS} ms`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function printLatencies(label: string, samples: readonly number[], bare: readonly number[]): { sync: Percentiles; bare: Percentiles } {
  const sync = percentiles(samples);
  const base = percentiles(bare);
  console.log(`  ${label}  (${samples.length} samples per side, ms)`);
  console.log(`    sync   p50 ${ms(sync.p50)}   p95 ${ms(sync.p95)}   p99 ${ms(sync.p99)}`);
  console.log(`    bare   p50 ${ms(base.p50)}   p95 ${ms(base.p95)}   p99 ${ms(base.p99)}`);
  console.log(`    ratio  p50 ${(sync.p50 / base.p50).toFixed(2).padStart(8)}   p95 ${(sync.p95 / base.p95).toFixed(2).padStart(8)}   p99 ${(sync.p99 / base.p99).toFixed(2).padStart(8)}`);
  return { sync, bare: base };
}

function verdict(name: string, ratio: number, target: number, atMost: boolean): void {
  const met = atMost ? ratio <= target : ratio >= target;
  console.log(`  target ${name}: ratio ${ratio.toFixed(2)} (${atMost ? "≤" : "≥"} ${target}): ${met ? "met" : "NOT MET"}`);
}

/** A client the way the sync tests connect one: websocket only, no reconnection, its own manager. */
async function connectClient(url: string, token?: string): Promise<Socket> {
  const socket = connectSocket(url, { transports: ["websocket"], auth: token ? { token } : {}, reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

/**
 * Resolves when `count` receipts of `id` have arrived: every client's listener calls
 * `received(id)`, so one listener per socket serves every sample.
 */
class ReceiptCounter {
  private pending?: { id: string; count: number; remaining: number; resolve: () => void };
  /** When the first client of the current expectation got it (`performance.now()`). */
  firstAt = 0;

  expect(id: string, count: number): Promise<void> {
    return new Promise((resolve) => {
      this.pending = { id, count, remaining: count, resolve };
    });
  }

  received(id: unknown): void {
    const pending = this.pending;
    if (!pending || pending.id !== id) return;
    if (pending.remaining === pending.count) this.firstAt = now();
    if (--pending.remaining === 0) {
      this.pending = undefined;
      pending.resolve();
    }
  }
}

/** The bare baseline: a socket.io server with no framework, on its own loopback port. */
async function bareSocketServer(): Promise<{ io: SocketIoServer; http: HttpServer; url: string }> {
  const http = createServer();
  // Same engine settings as the app's socket server (hosts/socket-server.ts): no served client, 1 MiB payloads.
  const io = new SocketIoServer(http, { serveClient: false, maxHttpBufferSize: 1024 * 1024 });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return { io, http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

interface SnapshotBody {
  entities: unknown[];
  cursor: number;
  hasMore: boolean;
}

/**
 * GET with the keep-alive agent, parsed as a client would. A request on a reused connection that
 * the server closed meanwhile (its keep-alive timeout, when a busy machine stretches the pause
 * between rounds) is sent once more on a fresh one, as HTTP clients do.
 */
function getJson<T>(agent: Agent, port: number, path: string, token: string, retried = false): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== 200) reject(new Error(`GET ${path} answered ${res.statusCode}: ${text.slice(0, 200)}`));
        else resolve(JSON.parse(text) as T);
      });
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && error.code === "ECONNRESET" && !retried) resolve(getJson<T>(agent, port, path, token, true));
      else reject(error);
    });
    req.end();
  });
}

// --- the benchmark ---------------------------------------------------------------------------

export default async function benchSync(): Promise<void> {
  const Todo = syncedModel("BenchSyncTodo", {
    title: { type: String, required: true, maxlength: 200, description: "What to do" },
    done: { type: Boolean, default: false, description: "Whether it is done" },
    ownerId: { type: String, description: "Owner" },
  });
  const News = syncedModel("BenchSyncNews", { headline: { type: String, required: true, description: "Headline" } });
  const Page = syncedModel("BenchSyncPage", {
    title: { type: String, required: true, description: "Title" },
    body: { type: String, description: "Body" },
    rank: { type: Number, description: "Rank" },
  });
  const owned = { list: [Permissions.IsOwner], read: [Permissions.IsOwner], create: [Permissions.IsAuthenticated], update: [Permissions.IsOwner], delete: [Permissions.IsOwner] };
  const open = { list: [Permissions.IsAuthenticated], read: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated], update: [Permissions.IsAuthenticated], delete: [Permissions.IsAuthenticated] };

  const database = await startTestDatabase();
  // Request logging off as in the other benches; slow-operation and slow-request warnings would
  // only interleave with the results (20 concurrent snapshot readers are slow on 2 busy cores).
  const app = (await createTestApp({ port: 0, host: "127.0.0.1", env: { DISABLE_LOG_ALL_REQUESTS: "true", SLOW_DB_QUERY_THRESHOLD_MS: "60000", SLOW_REQUEST_THRESHOLD_MS: "60000" } }))
    .register(authPlugin({ userModel: userModel() }))
    // A cheap KDF: the bench signs 20 users in; password hashing is not what it measures.
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) })
    .register(modelRouter("/bench-todos", Todo, { permissions: owned, sync: { scope: { type: "owner" } } }))
    .register(modelRouter("/bench-news", News, { permissions: open, sync: { scope: { type: "broadcast" } } }))
    .register(modelRouter("/bench-pages", Page, { permissions: open, sync: { scope: { type: "broadcast" } } }))
    .register(syncApp())
    // The default 100 mutations/s per socket would nack a sequential round-trip loop; the limiter
    // itself still runs on every mutation.
    .register(realtimeApp({ mutationsPerSecond: 1_000_000 }));
  const running = await app.start();
  const socketUrl = running.socketUrl!;
  const bare = await bareSocketServer();
  const driver = await new MongoClient(database.uri).connect();
  const db = driver.db(database.dbName);
  const sockets: Socket[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: SNAPSHOT.clients });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i++) tokens.push(await loginAs(app, await createUser(app)));
    console.log(`  embedded database, socket.io websocket clients in this process, ${USERS} signed-in users (JWT)`);

    if (PARTS.includes("a")) {
      // (a) mutate round trip --------------------------------------------------------------------
      const todos = Todo.collection.collectionName;
      type BareTodo = { _id: string; title: string; done: boolean; ownerId: string; _syncSeq?: number; _syncStream?: string };
      const bareTodos = db.collection<BareTodo>("bench_bare_todos");
      const bareCounters = db.collection<{ stream: string; seq: number }>("bench_bare_counters");
      const bareMutations = db.collection<{ mutationId: string; userId: string; entityId: string; seq: number }>("bench_bare_mutations");
      await bareCounters.createIndex({ stream: 1 }, { unique: true });
      await bareMutations.createIndex({ mutationId: 1 }, { unique: true });
      await bareCounters.insertOne({ stream: "bench", seq: 0 });
      type BarePayload = { mutationId: string; id: string; title: string; done: boolean; ownerId: string };
      bare.io.on("connection", (socket) => {
        socket.on("todo:create", async (payload: BarePayload, ack: (answer: unknown) => void) => {
          try {
            await bareTodos.insertOne({ _id: payload.id, title: payload.title, done: payload.done, ownerId: payload.ownerId });
            ack({ ack: { mutationId: payload.mutationId, id: payload.id, seq: 0 } });
          } catch (error) {
            ack({ nack: { message: error instanceof Error ? error.message : String(error) } });
          }
        });
        // The same work a synced create must do, written by hand with the driver: in one
        // transaction, draw the stream's next seq (the counter is the stream's lock), insert the
        // document with it, record the mutation id (unique, for idempotent replays), commit.
        socket.on("todo:createSequenced", async (payload: BarePayload, ack: (answer: unknown) => void) => {
          const session = driver.startSession();
          try {
            session.startTransaction({ readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
            const counter = await bareCounters.findOneAndUpdate({ stream: "bench" }, { $inc: { seq: 1 } }, { returnDocument: "after", session });
            const seq = counter!.seq;
            await bareTodos.insertOne({ _id: payload.id, title: payload.title, done: payload.done, ownerId: payload.ownerId, _syncSeq: seq, _syncStream: "bench" }, { session });
            await bareMutations.insertOne({ mutationId: payload.mutationId, userId: payload.ownerId, entityId: payload.id, seq }, { session });
            await session.commitTransaction();
            ack({ ack: { mutationId: payload.mutationId, id: payload.id, seq } });
          } catch (error) {
            if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
            ack({ nack: { message: error instanceof Error ? error.message : String(error) } });
          } finally {
            await session.endSession();
          }
        });
      });
      const writer = await connectClient(socketUrl, tokens[0]);
      const bareWriter = await connectClient(bare.url);
      sockets.push(writer, bareWriter);
      const mutate = async (): Promise<number> => {
        const started = now();
        const answer = (await writer.timeout(WAIT_MS).emitWithAck("sync:mutate", { mutationId: randomUUID(), collection: todos, operation: "create", id: randomUUID(), data: { title: "Benchmark todo", done: false } })) as { ack?: unknown; nack?: unknown };
        const elapsed = now() - started;
        if (!answer.ack) throw new Error(`sync:mutate was not acked: ${JSON.stringify(answer)}`);
        return elapsed;
      };
      const bareCreate = (event: string) => async (): Promise<number> => {
        const started = now();
        const answer = (await bareWriter.timeout(WAIT_MS).emitWithAck(event, { mutationId: randomUUID(), id: randomUUID(), title: "Benchmark todo", done: false, ownerId: "bench" })) as { ack?: unknown; nack?: unknown };
        const elapsed = now() - started;
        if (!answer.ack) throw new Error(`${event} was not acked: ${JSON.stringify(answer)}`);
        return elapsed;
      };
      const bareInsert = bareCreate("todo:create");
      const bareSequenced = bareCreate("todo:createSequenced");
      for (let i = 0; i < MUTATE.warmup; i++) {
        await mutate();
        await bareInsert();
        await bareSequenced();
      }
      const mutateSync: number[] = [];
      const mutateBare: number[] = [];
      const mutateSequenced: number[] = [];
      for (let round = 0; round < MUTATE.rounds; round++) {
        for (let i = 0; i < MUTATE.perRound; i++) mutateBare.push(await bareInsert());
        for (let i = 0; i < MUTATE.perRound; i++) mutateSequenced.push(await bareSequenced());
        for (let i = 0; i < MUTATE.perRound; i++) mutateSync.push(await mutate());
      }
      console.log("\n (a) sync:mutate create round trip vs bare socket.io + driver insertOne (the issue's baseline)");
      const a = printLatencies("mutate", mutateSync, mutateBare);
      verdict("(a) p95 ≤ 2× bare insertOne", a.sync.p95 / a.bare.p95, TARGETS.mutateP95, true);
      console.log("\n (a') the same sync:mutate samples vs bare socket.io + a hand-written sequenced write (transaction: counter $inc, insertOne, mutation record, commit)");
      const sequenced = printLatencies("mutate", mutateSync, mutateSequenced);
      verdict("(a') p95 ≤ 2× hand-written sequenced write", sequenced.sync.p95 / sequenced.bare.p95, TARGETS.mutateP95, true);
    }

    if (PARTS.includes("b")) {
      // (b) fan-out ------------------------------------------------------------------------------
      const news = News.collection.collectionName;
      const syncReceipts = new ReceiptCounter();
      const bareReceipts = new ReceiptCounter();
      bare.io.on("connection", (socket) => void socket.join("bench-room"));
      const subscribers: Socket[] = [];
      const bareSubscribers: Socket[] = [];
      for (let i = 0; i < FANOUT.clients; i++) {
        const socket = await connectClient(socketUrl, tokens[i % USERS]);
        sockets.push(socket);
        socket.on("sync:delta", (delta: SyncDelta) => syncReceipts.received(delta.id));
        const answer = (await socket.timeout(WAIT_MS).emitWithAck("sync:subscribe", { collections: [news] })) as Array<{ streams?: string[] }>;
        if (!answer[0]?.streams) throw new Error(`sync:subscribe refused: ${JSON.stringify(answer)}`);
        subscribers.push(socket);
        const bareSocket = await connectClient(bare.url);
        sockets.push(bareSocket);
        bareSocket.on("sync:delta", (delta: SyncDelta) => bareReceipts.received(delta.id));
        bareSubscribers.push(bareSocket);
      }
      let sampleDelta: SyncDelta | undefined;
      subscribers[0]!.on("sync:delta", (delta: SyncDelta) => void (sampleDelta ??= delta));
      // Where a fan-out's time goes: the write until save() resolved (committed), then until the
      // first subscriber got the delta (change stream, delta, room emit), then until the last did.
      const steps = { committed: [] as number[], firstDelivered: [] as number[], spread: [] as number[], fromCommit: [] as number[], bareFirst: [] as number[], bareSpread: [] as number[] };
      const fanout = async (): Promise<number> => {
        const id = randomUUID();
        const all = syncReceipts.expect(id, FANOUT.clients);
        const started = now();
        await new News({ _id: id, headline: "Benchmark headline" }).save();
        const committed = now();
        await within(all, "a sync fan-out");
        const finished = now();
        steps.committed.push(committed - started);
        steps.firstDelivered.push(syncReceipts.firstAt - committed);
        steps.spread.push(finished - syncReceipts.firstAt);
        steps.fromCommit.push(finished - committed);
        return finished - started;
      };
      const bareFanout = async (): Promise<number> => {
        const delta = { ...sampleDelta!, id: randomUUID() };
        const all = bareReceipts.expect(delta.id, FANOUT.clients);
        const started = now();
        bare.io.to("bench-room").emit("sync:delta", delta);
        await within(all, "a bare fan-out");
        const finished = now();
        steps.bareFirst.push(bareReceipts.firstAt - started);
        steps.bareSpread.push(finished - bareReceipts.firstAt);
        return finished - started;
      };
      await fanout(); // gives the real delta the bare broadcast sends
      for (let i = 0; i < FANOUT.warmup; i++) {
        await fanout();
        await bareFanout();
      }
      for (const list of Object.values(steps)) list.length = 0;
      const fanoutSync: number[] = [];
      const fanoutBare: number[] = [];
      for (let round = 0; round < FANOUT.rounds; round++) {
        for (let i = 0; i < FANOUT.perRound; i++) fanoutBare.push(await bareFanout());
        for (let i = 0; i < FANOUT.perRound; i++) fanoutSync.push(await fanout());
      }
      console.log(`\n (b) fan-out of one write to ${FANOUT.clients} subscribed sockets vs bare socket.io room broadcast`);
      const b = printLatencies("fan-out", fanoutSync, fanoutBare);
      const step = (label: string, samples: readonly number[]) => {
        const p = percentiles(samples);
        console.log(`      ${label.padEnd(34)} p50 ${ms(p.p50)}   p95 ${ms(p.p95)}   p99 ${ms(p.p99)}`);
      };
      console.log("    steps:");
      step("sync: save() until committed", steps.committed);
      step("sync: committed → first delivered", steps.firstDelivered);
      step("sync: first → last delivered", steps.spread);
      step("bare: emit → first delivered", steps.bareFirst);
      step("bare: first → last delivered", steps.bareSpread);
      verdict("(b) p99 ≤ 1.5× bare", b.sync.p99 / b.bare.p99, TARGETS.fanoutP99, true);
      // The bare side broadcasts a payload it already has; the synced side above also waits for
      // its own write's transaction, which (a) measures. From the commit on, the two do the same
      // job: get one committed change to 100 sockets.
      console.log(`\n (b') the same fan-outs timed from the write's commit (change stream, delta, room broadcast) vs the bare broadcast`);
      const fromCommit = printLatencies("fan-out", steps.fromCommit, fanoutBare);
      verdict("(b') p99 ≤ 1.5× bare, from the commit", fromCommit.sync.p99 / fromCommit.bare.p99, TARGETS.fanoutP99, true);
      for (const socket of [...subscribers, ...bareSubscribers]) socket.disconnect();
    }

    if (PARTS.includes("c")) {
      // (c) snapshot catch-up --------------------------------------------------------------------
      // Seeded with the driver: save() (one transaction per document, the only write path synced
      // models allow) takes 15 s on two quiet cores and 90 s on busy ones, most of the bench's
      // budget. The documents get what save() would stamp — seqs 1..5000 of the broadcast stream,
      // `deleted: false` — and the stream's counter is moved to the last seq, so the snapshot's
      // frontier covers them all (each client checks it read exactly 5000).
      const pages = Page.collection.collectionName;
      const stream = `${pages}|all`;
      const seedStarted = now();
      await db.collection<{ _id: string; title: string; body: string; rank: number; deleted: boolean; _syncSeq: number; _syncStream: string; __v: number }>(pages).insertMany(
        Array.from({ length: SNAPSHOT.documents }, (_, i) => ({
          _id: randomUUID(),
          title: `Page ${i}`,
          body: "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
          rank: i,
          deleted: false,
          _syncSeq: i + 1,
          _syncStream: stream,
          __v: 0,
        })),
      );
      // `svc_sync_counters` is the documented counter collection (docs/sync.md).
      await db.collection("svc_sync_counters").updateOne({ stream }, { $max: { seq: SNAPSHOT.documents } }, { upsert: true });
      const seedSeconds = (now() - seedStarted) / 1000;
      const catchUp = async (token: string): Promise<{ ms: number; documents: number }> => {
        const started = now();
        let cursor = 0;
        let documents = 0;
        for (;;) {
          const page = await getJson<SnapshotBody>(agent, running.port, `/sync/snapshot?collection=${pages}&limit=${SNAPSHOT.limit}&cursor=${cursor}`, token);
          documents += page.entities.length;
          cursor = page.cursor;
          if (!page.hasMore) break;
        }
        return { ms: now() - started, documents };
      };
      const bareRead = async (): Promise<{ ms: number; documents: number }> => {
        const started = now();
        const docs = await db.collection(pages).find({ _syncStream: stream }).sort({ _syncSeq: 1 }).toArray();
        const json = JSON.stringify(docs);
        if (json.length === 0) throw new Error("unreachable");
        return { ms: now() - started, documents: docs.length };
      };
      const round = async (client: (index: number) => Promise<{ ms: number; documents: number }>) => {
        const started = now();
        // allSettled: a failed client must not leave the others' requests running into the shutdown.
        const settled = await Promise.allSettled(Array.from({ length: SNAPSHOT.clients }, (_, index) => client(index)));
        const seconds = (now() - started) / 1000;
        const failed = settled.find((result) => result.status === "rejected");
        if (failed) throw failed.reason;
        const results = settled.map((result) => (result as PromiseFulfilledResult<{ ms: number; documents: number }>).value);
        for (const result of results) if (result.documents !== SNAPSHOT.documents) throw new Error(`a client read ${result.documents} documents, expected ${SNAPSHOT.documents}`);
        return { seconds, latencies: results.map((result) => result.ms) };
      };
      await round((index) => catchUp(tokens[index % USERS]!)); // warm-up
      await round(() => bareRead());
      let syncSeconds = 0;
      let bareSeconds = 0;
      const snapshotSync: number[] = [];
      const snapshotBare: number[] = [];
      for (let r = 0; r < SNAPSHOT.rounds; r++) {
        const base = await round(() => bareRead());
        bareSeconds += base.seconds;
        snapshotBare.push(...base.latencies);
        const sync = await round((index) => catchUp(tokens[index % USERS]!));
        syncSeconds += sync.seconds;
        snapshotSync.push(...sync.latencies);
      }
      const total = SNAPSHOT.rounds * SNAPSHOT.clients * SNAPSHOT.documents;
      const syncRate = total / syncSeconds;
      const bareRate = total / bareSeconds;
      console.log(
        `\n (c) snapshot catch-up, ${SNAPSHOT.documents.toLocaleString("en-US")} documents × ${SNAPSHOT.clients} concurrent clients (limit ${SNAPSHOT.limit}) vs driver find + JSON.stringify` +
          ` (seeded with insertMany in ${seedSeconds.toFixed(1)} s)`,
      );
      printLatencies("per-client catch-up", snapshotSync, snapshotBare);
      console.log(`    throughput  sync ${Math.round(syncRate).toLocaleString("en-US").padStart(10)} docs/s   bare ${Math.round(bareRate).toLocaleString("en-US").padStart(10)} docs/s   ratio ${(syncRate / bareRate).toFixed(2)}`);
      verdict("(c) throughput ≥ 0.7× bare", syncRate / bareRate, TARGETS.snapshotThroughput, false);
    }

  } finally {
    for (const socket of sockets) socket.disconnect();
    agent.destroy();
    await new Promise<void>((resolve) => void bare.io.close(() => resolve()));
    await driver.close();
    await app.stop();
    await stopTestDatabase();
  }
}

// Run directly: `node --import=tsx bench/sync.ts`.
if (import.meta.url === `file://${process.argv[1]}`) await benchSync();
