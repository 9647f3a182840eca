import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { AdminErrors } from "./index.js";
import { ScriptTasks } from "./script-tasks.js";
import { adminTestApp, testAdminOptions } from "../../test/support/admin-test-app.js";

test.after.always(() => stopTestDatabase());

const silent: SvcLogger = { debug() {}, info() {}, warn() {}, error() {} };
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

// The slow script waits for the test to release it, so its running state can be read.
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

// `held` scripts wait until the test lets them go, each run on its own.
const holds: Array<() => void> = [];
const held = () => new Promise<void>((resolve) => holds.push(resolve));

const options = testAdminOptions({
  scripts: {
    once: { run: held },
    pair: { concurrency: 2, run: held },
    slow: {
      description: "Waits to be released",
      run: async ({ log }) => {
        log("started");
        await released;
        log("finished");
      },
    },
    broken: {
      run: async ({ log }) => {
        log("about to fail");
        throw new Error("the script broke");
      },
    },
    "sync-throw": {
      run: () => {
        throw new Error("thrown at once");
      },
    },
  },
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 500 && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await read();
  }
  return value;
}

test("a running task's status and log are readable, then its result", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), options);
  const admin = await app.user({ roles: ["full"] });
  const scripts = await request(app.http).get("/admin/scripts").set(auth(admin.token)).expect(200);
  t.deepEqual(scripts.body.data.map((script: { name: string }) => script.name), ["once", "pair", "slow", "broken", "sync-throw"]);

  const started = await request(app.http).post("/admin/scripts/slow/run").set(auth(admin.token)).expect(202);
  const id = started.body.data.id as string;
  t.is(started.body.data.status, "running");
  t.is(started.headers.location, `/admin/tasks/${id}`);
  const running = await until(
    async () => (await request(app.http).get(`/admin/tasks/${id}`).set(auth(admin.token)).expect(200)).body.data,
    (task) => task.log.length > 0,
  );
  t.like(running, { status: "running", log: ["started"], script: "slow", startedBy: admin.id });
  release();
  const finished = await until(
    async () => (await request(app.http).get(`/admin/tasks/${id}`).set(auth(admin.token)).expect(200)).body.data,
    (task) => task.status !== "running",
  );
  t.like(finished, { status: "succeeded", log: ["started", "finished"] });
  t.truthy(finished.finished);
  const tasks = await request(app.http).get("/admin/tasks").set(auth(admin.token)).expect(200);
  t.true(tasks.body.data.some((task: { id: string }) => task.id === id));
});

test("a failing script is reported as failed and the app keeps answering", async (t) => {
  const app = await adminTestApp("setupServer", (fn) => t.teardown(fn), options);
  const admin = await app.user({ roles: ["full"] });
  for (const script of ["broken", "sync-throw"]) {
    const id = (await request(app.http).post(`/admin/scripts/${script}/run`).set(auth(admin.token)).expect(202)).body.data.id as string;
    const failed = await until(
      async () => (await request(app.http).get(`/admin/tasks/${id}`).set(auth(admin.token)).expect(200)).body.data,
      (task) => task.status !== "running",
    );
    t.is(failed.status, "failed");
    t.regex(failed.error, /thrown at once|the script broke/);
  }
  await request(app.http).get("/admin/config").set(auth(admin.token)).expect(200);
  const unknown = await request(app.http).post("/admin/scripts/nope/run").set(auth(admin.token)).expect(404);
  t.is(unknown.body.errors[0].code, AdminErrors.UNKNOWN_SCRIPT.code);
  const missing = await request(app.http).get("/admin/tasks/not-a-task").set(auth(admin.token)).expect(404);
  t.is(missing.body.errors[0].code, AdminErrors.UNKNOWN_TASK.code);
  // Inherited names are not scripts.
  await request(app.http).post("/admin/scripts/constructor/run").set(auth(admin.token)).expect(404);
});

test("callers without the script permissions can neither list nor run", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), options);
  const [support, viewer, plain] = await Promise.all([app.user({ roles: ["support"] }), app.user({ roles: ["tasks-viewer"] }), app.user()]);
  for (const caller of [support, plain]) {
    await request(app.http).get("/admin/scripts").set(auth(caller.token)).expect(403);
    await request(app.http).get("/admin/tasks").set(auth(caller.token)).expect(403);
    await request(app.http).post("/admin/scripts/broken/run").set(auth(caller.token)).expect(403);
  }
  await request(app.http).post("/admin/scripts/broken/run").expect(401);
  // Viewing background tasks does not allow running scripts.
  await request(app.http).get("/admin/tasks").set(auth(viewer.token)).expect(200);
  await request(app.http).post("/admin/scripts/broken/run").set(auth(viewer.token)).expect(403);
  const admin = await app.user({ roles: ["full"] });
  const tasks = await request(app.http).get("/admin/tasks").set(auth(admin.token)).expect(200);
  t.deepEqual(tasks.body.data, []);
});

test("a script runs once at a time unless its concurrency says more: a run past it is a 409 naming the runs in progress", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), options);
  const admin = await app.user({ roles: ["full"] });
  const run = (script: string, status: number) => request(app.http).post(`/admin/scripts/${script}/run`).set(auth(admin.token)).expect(status);
  const task = (id: string) => async () => (await request(app.http).get(`/admin/tasks/${id}`).set(auth(admin.token)).expect(200)).body.data;

  const first = (await run("once", 202)).body.data.id as string;
  const refused = await run("once", 409);
  t.like(refused.body.errors[0], { code: AdminErrors.SCRIPT_RUNNING.code, meta: { taskIds: [first] } });
  t.regex(refused.body.errors[0].detail, new RegExp(first));
  const pairs = [(await run("pair", 202)).body.data.id, (await run("pair", 202)).body.data.id] as string[];
  t.deepEqual((await run("pair", 409)).body.errors[0].meta.taskIds.sort(), [...pairs].sort());
  // Only the refused runs are missing from the tasks: three are running.
  const tasks = (await request(app.http).get("/admin/tasks").set(auth(admin.token)).expect(200)).body.data as Array<{ id: string; status: string }>;
  t.deepEqual(tasks.filter((entry) => entry.status === "running").map((entry) => entry.id).sort(), [first, ...pairs].sort());

  // Once a run has finished, the script may run again.
  holds.splice(0).forEach((resolve) => resolve());
  await until(task(first), (data) => data.status === "succeeded");
  for (const id of pairs) await until(task(id), (data) => data.status === "succeeded");
  const again = (await run("once", 202)).body.data.id as string;
  t.not(again, first);
  holds.splice(0).forEach((resolve) => resolve());
  t.is((await until(task(again), (data) => data.status !== "running")).status, "succeeded");
});

test("a concurrency that is not a whole number from 1 to 100 stops the app at start-up", (t) => {
  for (const concurrency of [0, 1.5, 101, Number.NaN]) {
    const error = t.throws(() => new ScriptTasks({ job: { concurrency, run: () => undefined } }, silent));
    t.true(hasErrorCode(error, AdminErrors.INVALID_SCRIPT_CONCURRENCY), String(concurrency));
  }
  t.notThrows(() => new ScriptTasks({ job: { concurrency: 100, run: () => undefined } }, silent));
});
