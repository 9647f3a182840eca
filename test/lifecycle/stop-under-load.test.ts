import test from "ava";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import net from "node:net";
import mongoose, { Schema } from "mongoose";
import { HTTP_ROUTER, modelRouter, Permissions, type SvcApp } from "../../index.js";
import { createTestApp, startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";

// app.stop() under load, over real HTTP: what is in flight when stop begins gets its real answer,
// what comes after is refused, and once stop() resolves nothing more reaches the database.

const silent = { debug() {}, info() {}, warn() {}, error() {} };

const Note = mongoose.models.LifecycleNote ?? mongoose.model("LifecycleNote", new Schema({ text: { type: String, description: "Text" } }, { strict: "throw" }));

test.after.always(() => stopTestDatabase());

/** A gate the test opens: handlers awaiting it are in flight until then. */
function gate(): { wait: () => Promise<void>; open: () => void; arrived: () => number; arrivals: (n: number) => Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let count = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  return {
    wait: () => {
      count++;
      for (const waiter of waiters.filter((w) => count >= w.n)) waiter.resolve();
      return opened;
    },
    open,
    arrived: () => count,
    arrivals: (n) => (count >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
  };
}

/** One request on `agent`; resolves with status and parsed body. */
function request(port: number, options: { method?: string; path: string; body?: unknown; agent?: http.Agent }): Promise<{ status: number; body: unknown; connection?: string }> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        agent: options.agent ?? false,
        headers: payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, connection: res.headers.connection }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** How a fresh TCP connection to `port` fares: `refused` (nothing listens) or what happened instead. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED" ? "refused" : `error ${error.code}`));
    socket.once("connect", () => {
      socket.destroy();
      resolve("accepted");
    });
  });
}

async function loadedApp(hold: ReturnType<typeof gate>): Promise<SvcApp> {
  const app = await createTestApp({ logger: silent, port: 0, shutdownTimeoutMs: 30_000 });
  return app
    .register(
      modelRouter("/notes", Note, {
        permissions: { create: [Permissions.IsAny], list: [Permissions.IsAny] },
        // The write happens after the gate opens, i.e. after stop() began.
        preCreate: async (body) => {
          await hold.wait();
          return body;
        },
      }),
    )
    .register({
      name: "slow",
      start(ctx) {
        ctx.resolve(HTTP_ROUTER).get("/slow", async (_req, res) => {
          await hold.wait();
          const count = await Note.countDocuments({});
          res.json({ data: { count } });
        });
        ctx.resolve(HTTP_ROUTER).get("/fast", (_req, res) => res.json({ data: "fast" }));
      },
    });
}

async function countNotes(): Promise<number> {
  const database = await startTestDatabase();
  const client = await new mongoose.mongo.MongoClient(database.uri).connect();
  try {
    return await client.db(database.dbName).collection(Note.collection.collectionName).countDocuments({});
  } finally {
    await client.close();
  }
}

test.serial("stop under load: in-flight requests and writes finish, new connections are refused, nothing is written after", async (t) => {
  const hold = gate();
  const app = await loadedApp(hold);
  t.teardown(() => app.stop());
  const before = await countNotes();
  const running = await app.start();
  const { port } = running.server.address() as AddressInfo;

  // An idle keep-alive connection: stop must close it rather than wait on it.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  t.is((await request(port, { path: "/fast", agent })).status, 200);
  const idle = Object.values(agent.freeSockets).flat()[0] as Socket;
  t.truthy(idle, "the keep-alive socket is pooled");
  const idleClosed = new Promise<void>((resolve) => idle.once("close", () => resolve()));

  const burst = 15;
  const writes = Array.from({ length: burst }, (_, i) => request(port, { method: "POST", path: "/notes", body: { text: `note ${i}` } }));
  const slow = request(port, { path: "/slow" });
  await hold.arrivals(burst + 1);

  let stopped = false;
  const stopping = app.stop().then(() => (stopped = true));
  await idleClosed;
  t.is(await connectOutcome(port), "refused", "a new connection is refused while in-flight requests drain");
  t.false(stopped, "stop() waits for the requests in flight");

  hold.open();
  const answers = await Promise.all(writes);
  for (const answer of answers) {
    t.is(answer.status, 201, JSON.stringify(answer.body));
    t.is(answer.connection, "close");
  }
  const slowAnswer = await slow;
  t.is(slowAnswer.status, 200);
  await stopping;

  const after = await countNotes();
  t.is(after - before, burst);
  // A write still queued anywhere would land now.
  await new Promise((resolve) => setImmediate(resolve));
  t.is(await countNotes(), after);
  t.is(await connectOutcome(port), "refused");
});

test.serial("stop() called twice concurrently and again later shares one shutdown", async (t) => {
  const hold = gate();
  const app = await loadedApp(hold);
  t.teardown(() => app.stop());
  const running = await app.start();
  const { port } = running.server.address() as AddressInfo;
  const slow = request(port, { path: "/slow" });
  await hold.arrivals(1);
  const first = app.stop();
  const second = running.stop();
  t.is(first, second);
  hold.open();
  t.is((await slow).status, 200);
  await Promise.all([first, second]);
  await app.stop();
  t.is(await connectOutcome(port), "refused");
});

test.serial("a request outliving shutdownTimeoutMs is cut off, stop() resolves, and its late write is not stored", async (t) => {
  const hold = gate();
  const app = (await createTestApp({ logger: silent, port: 0, shutdownTimeoutMs: 100 })).register(
    modelRouter("/notes", Note, {
      permissions: { create: [Permissions.IsAny] },
      preCreate: async (body) => {
        await hold.wait();
        return body;
      },
    }),
  );
  t.teardown(() => app.stop());
  const before = await countNotes();
  const running = await app.start();
  const { port } = running.server.address() as AddressInfo;
  const write = request(port, { method: "POST", path: "/notes", body: { text: "late" } });
  await hold.arrivals(1);
  await app.stop();
  const cut = await t.throwsAsync(write);
  t.regex(String(cut), /socket hang up|ECONNRESET/);
  hold.open();
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(await countNotes(), before);
});
