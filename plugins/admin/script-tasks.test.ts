import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { AdminErrors } from "./index.js";
import { adminTestApp, testAdminOptions } from "../../test/support/admin-test-app.js";

test.after.always(() => stopTestDatabase());

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

// The slow script waits for the test to release it, so its running state can be read.
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

const options = testAdminOptions({
  scripts: {
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
  t.deepEqual(scripts.body.data.map((script: { name: string }) => script.name), ["slow", "broken", "sync-throw"]);

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
