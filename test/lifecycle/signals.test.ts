import test from "ava";
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SvcApp } from "../../index.js";

// handleSignals in a real process: SIGTERM stops the app gracefully and exits 0; when a request
// outlives the grace period (shutdownTimeoutMs), it is cut off, one error line says so, and the
// exit code is 1.

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "support", "signal-child.ts");

async function stopBySignal(graceMs: number, releaseRequest: boolean, secondApp = false, failingStop = false) {
  const env = { ...process.env, GRACE_MS: String(graceMs), ...(secondApp ? { SECOND_APP: "1" } : {}), ...(failingStop ? { FAILING_STOP: "1" } : {}) };
  const app = fork(child, { execArgv: ["--import=tsx"], stdio: ["ignore", "pipe", "pipe", "ipc"], env });
  let output = "";
  const waiting: Array<() => void> = [];
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiting.splice(0)) check();
  };
  app.stdout!.on("data", collect);
  app.stderr!.on("data", collect);
  const seen = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => (output.includes(text) ? resolve() : void waiting.push(check));
      check();
    });
  // "close", not "exit": the last lines can still be in the pipes when the process exits.
  const exited = new Promise<number | null>((resolve) => app.on("close", (code) => resolve(code)));
  await seen("listening ");
  const port = /listening (\d+)/.exec(output)![1];
  const request = fetch(`http://127.0.0.1:${port}/slow`).then(
    async (response) => ({ status: response.status, body: await response.json() }),
    (error: unknown) => ({ error: String(error) }),
  );
  await seen("in-flight");
  app.kill("SIGTERM");
  await seen("signalled");
  if (releaseRequest) app.send("release");
  const code = await exited;
  const lines = output.split("\n").filter((line) => line.trim() !== "");
  return { code, answer: await request, errorLines: lines.filter((line) => /error/i.test(line)) };
}

test("SIGTERM with a request in flight that finishes: it gets its answer, exit 0, no error logged", async (t) => {
  const { code, answer, errorLines } = await stopBySignal(30_000, true);
  t.deepEqual(answer, { status: 200, body: { data: "finished" } });
  t.is(code, 0);
  t.deepEqual(errorLines, []);
});

test("SIGTERM with a request outliving shutdownTimeoutMs: it is cut off, one error line, exit 1", async (t) => {
  const { code, answer, errorLines } = await stopBySignal(200, false);
  t.true("error" in answer, JSON.stringify(answer));
  t.is(code, 1);
  t.is(errorLines.length, 1, errorLines.join("\n"));
  t.regex(errorLines[0]!, /grace period/);
});

test("SIGTERM where a plugin fails to stop: the others stop, its error is logged, exit 1", async (t) => {
  const { code, answer, errorLines } = await stopBySignal(30_000, true, false, true);
  t.deepEqual(answer, { status: 200, body: { data: "finished" } });
  t.is(code, 1);
  t.is(errorLines.length, 1, errorLines.join("\n"));
  t.regex(errorLines[0]!, /Plugin "leaky" failed to stop cleanly/);
});

test("two apps in one process: SIGTERM exits once both stopped, so the slower one's request still gets its answer", async (t) => {
  const { code, answer, errorLines } = await stopBySignal(30_000, true, true);
  t.deepEqual(answer, { status: 200, body: { data: "finished" } });
  t.is(code, 0);
  t.deepEqual(errorLines, []);
});

test.serial("many listening apps in one process share one SIGINT/SIGTERM listener pair: no MaxListenersExceededWarning", async (t) => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  t.teardown(() => process.off("warning", onWarning));
  const before = { SIGINT: process.listenerCount("SIGINT"), SIGTERM: process.listenerCount("SIGTERM") };
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const apps = Array.from({ length: 12 }, () => new SvcApp({ env: { NODE_ENV: "test" }, database: false, logger: silent, port: 0, host: "127.0.0.1" }));
  t.teardown(() => Promise.all(apps.map((app) => app.stop())).then(() => undefined));
  await Promise.all(apps.map((app) => app.start()));
  t.deepEqual({ SIGINT: process.listenerCount("SIGINT"), SIGTERM: process.listenerCount("SIGTERM") }, { SIGINT: before.SIGINT + 1, SIGTERM: before.SIGTERM + 1 });
  await Promise.all(apps.slice(1).map((app) => app.stop()));
  t.is(process.listenerCount("SIGTERM"), before.SIGTERM + 1, "still listening for the app that runs");
  await apps[0]!.stop();
  t.deepEqual({ SIGINT: process.listenerCount("SIGINT"), SIGTERM: process.listenerCount("SIGTERM") }, before);
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(warnings.map(String), []);
});
