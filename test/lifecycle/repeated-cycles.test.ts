import test from "ava";
import mongoose, { Schema } from "mongoose";
import { io as connectSocket } from "socket.io-client";
import {
  authPlugin,
  baseUserPlugin,
  createScryptHasher,
  cronjob,
  HTTP_ROUTER,
  modelRouter,
  PASSWORD_HASHER,
  Permissions,
  type CronjobHandle,
  type SvcPlugin,
} from "../../index.js";
import { commsPlugin } from "../../plugins/comms/index.js";
import { featureFlagsPlugin } from "../../plugins/feature-flags/index.js";
import { bearer, createTestApp, createUser, loginAs, startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";

// Tests build and stop many apps in one process, and containers stop theirs on every deploy:
// a full app (auth, a model router, feature flags with live updates over sockets, a cron job,
// comms) started and stopped 20 times leaves no handle, no listener and no scheduled run behind.

const silent = { debug() {}, info() {}, warn() {}, error() {} };

const userSchema = new Schema({ name: { type: String, description: "Name" } }, { strict: "throw" });
userSchema.plugin(baseUserPlugin);
const User = mongoose.models.LifecycleUser ?? mongoose.model("LifecycleUser", userSchema);
const Note = mongoose.models.LifecycleCycleNote ?? mongoose.model("LifecycleCycleNote", new Schema({ text: { type: String, description: "Text" } }, { strict: "throw" }));

const CYCLES = 20;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
process.on("warning", onWarning);
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
process.on("unhandledRejection", onRejection);

test.after.always(async () => {
  process.off("warning", onWarning);
  process.off("unhandledRejection", onRejection);
  await stopTestDatabase();
});

/** Resources Node reports as keeping the loop alive, by kind; closed handles go in the close phase. */
async function activeResources(): Promise<Record<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

const PROCESS_EVENTS = ["SIGINT", "SIGTERM", "warning", "exit", "beforeExit", "uncaughtException", "unhandledRejection"] as const;
const processListeners = () => Object.fromEntries(PROCESS_EVENTS.map((event) => [event, process.listenerCount(event)]));

/** One cycle: start the full app, use each capability once, stop it; returns what ran after stop. */
async function cycle(n: number, runs: number[]): Promise<{ lateRuns: number; delivered: number }> {
  let job: CronjobHandle | undefined;
  const nightly: SvcPlugin = {
    name: "nightly",
    dependsOn: ["database"],
    start(ctx) {
      // Every minute, and once right away: a run after stop would be recorded with this cycle.
      job = cronjob("* * * * *", () => void runs.push(n), { name: `nightly-${n}`, runOnInit: true, context: ctx });
      ctx.resolve(HTTP_ROUTER).get("/nightly", (_req, res) => res.json({ data: { runs: runs.filter((run) => run === n).length } }));
    },
    async stop() {
      await job?.stop();
    },
  };
  const comms = commsPlugin();
  const app = (await createTestApp({ logger: silent, port: 0, handleSignals: true }))
    .register(authPlugin({ userModel: User }))
    .register(modelRouter("/notes", Note, { permissions: { create: [Permissions.IsAuthenticated], list: [Permissions.IsAuthenticated] } }))
    .register(featureFlagsPlugin({ liveUpdates: true }))
    .register(comms)
    .register(nightly)
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  let stopped = false;
  try {
    const running = await app.start();
    const account = await createUser(app);
    const headers = { ...bearer(await loginAs(app, account)), "content-type": "application/json" };
    const created = await fetch(`${running.url}/notes`, { method: "POST", headers, body: JSON.stringify({ text: `cycle ${n}` }) });
    if (created.status !== 201) throw new Error(`POST /notes answered ${created.status}: ${await created.text()}`);
    const flags = await fetch(`${running.url}/feature-flags/flagConfiguration`, { headers });
    if (flags.status !== 200) throw new Error(`flag configuration answered ${flags.status}: ${await flags.text()}`);
    const socket = connectSocket(running.socketUrl ?? running.url, { auth: { token: headers.Authorization.replace(/^Bearer /, "") }, transports: ["websocket"], reconnection: false });
    await new Promise<void>((resolve, reject) => {
      socket.once("featureFlagsSubscribed", () => resolve());
      socket.once("connect_error", reject);
    });
    const disconnected = new Promise<void>((resolve) => socket.once("disconnect", () => resolve()));
    const sent = await comms.getCommsService().sendMail({ to: `cycle-${n}@example.com`, subject: "Hi", text: "Hello" });
    if (!sent.accepted) throw new Error(`sendMail was not accepted: ${JSON.stringify(sent)}`);

    await app.stop();
    stopped = true;
    await disconnected;
    socket.close();
    const before = runs.length;
    await job!.trigger();
    const database = await startTestDatabase();
    const client = await new mongoose.mongo.MongoClient(database.uri).connect();
    try {
      const delivered = await client.db(database.dbName).collection("commsmessages").countDocuments({});
      return { lateRuns: runs.length - before, delivered };
    } finally {
      await client.close();
    }
  } finally {
    if (!stopped) await app.stop();
  }
}

test.serial(`start and stop a full app ${CYCLES} times: handles, listeners and schedules return to their baseline`, async (t) => {
  await startTestDatabase();
  const runs: number[] = [];
  const baseline = await activeResources();
  const listeners = processListeners();
  for (let n = 1; n <= CYCLES; n++) {
    const { lateRuns, delivered } = await cycle(n, runs);
    t.is(lateRuns, 0, `cycle ${n}: no cron run after stop`);
    t.is(delivered, n, `cycle ${n}: stop flushed the delivery log`);
    t.deepEqual(await activeResources(), baseline, `cycle ${n}: active handles back to the baseline`);
    t.deepEqual(processListeners(), listeners, `cycle ${n}: process listeners back to the baseline`);
  }
  t.deepEqual(
    runs,
    Array.from({ length: CYCLES }, (_, i) => i + 1),
    "each cycle's job ran once (its runOnInit), never after its app stopped",
  );
  t.deepEqual(warnings.map((warning) => `${warning.name}: ${warning.message}`), []);
  t.deepEqual(rejections.map(String), []);
});
