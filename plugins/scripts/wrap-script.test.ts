import test from "ava";
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { createSvcLogger, LogCapture } from "../logging/index.js";
import { wrapScript } from "./wrap-script.js";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "test-support", "wrap-script-fixture.ts");

function runFixture(mode: string): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", fixture, mode], { env: { ...process.env, NODE_ENV: "test" }, timeout: 60_000 }, (error, stdout) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ code, lines: stdout.trim().split("\n").filter(Boolean) });
    });
  });
}

test("child process: success exits 0 after closing the database", async (t) => {
  const { code, lines } = await runFixture("ok");
  t.is(code, 0);
  t.deepEqual(lines, ["running", "database closed"]);
});

test("child process: a failure is reported, the database closed, and the exit code is 1", async (t) => {
  const { code, lines } = await runFixture("fail");
  t.is(code, 1);
  t.deepEqual(lines, ["running", "database closed", "reported fixture-job"]);
});

test("child process: open handles do not keep a finished script alive", async (t) => {
  const { code, lines } = await runFixture("hang");
  t.is(code, 0);
  t.deepEqual(lines, ["running", "database closed"]);
});

function inProcess() {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const tracker = new InMemoryErrorTracker();
  const exits: number[] = [];
  return { capture, logger, tracker, exits, exit: (code: number) => void exits.push(code) };
}

test("in process: lines carry the job id; the error is logged and reported with it", async (t) => {
  const { capture, logger, tracker, exits, exit } = inProcess();
  await wrapScript(
    async () => {
      logger.info("working");
      throw new RangeError("out of range");
    },
    { name: "nightly", logger, errorTracker: tracker, exit, closeDatabase: async () => undefined },
  );
  t.deepEqual(exits, [1]);
  t.true(capture.lines.every((line) => line.jobId === "nightly"));
  t.like(capture.lines.find((line) => line.level === "error"), { jobId: "nightly" });
  t.is(tracker.exceptions.length, 1);
  t.like(tracker.exceptions[0]!.context, { jobId: "nightly", tags: { script: "nightly" } });
});

test("in process: a database that fails to close makes the exit code 1", async (t) => {
  const { logger, tracker, exits, exit } = inProcess();
  await wrapScript(() => undefined, {
    logger,
    errorTracker: tracker,
    exit,
    closeDatabase: async () => {
      throw new Error("close failed");
    },
  });
  t.deepEqual(exits, [1]);
});

test("in process: without a connection the default database close is a no-op", async (t) => {
  const { logger, tracker, exits, exit } = inProcess();
  await wrapScript(() => undefined, { logger, errorTracker: tracker, exit });
  t.deepEqual(exits, [0]);
});
