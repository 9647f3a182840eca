import test from "ava";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import winston from "winston";
import { createSvcLogger, loggerSettings } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";

function transportKinds(settings: winston.LoggerOptions): string[] {
  const transports = ([] as unknown[]).concat(settings.transports ?? []);
  return transports.map((transport) => (transport as object).constructor.name);
}

test("console and file transports are on by default outside tests", async (t) => {
  // winston creates the directory and files when the transport is built: never point it into the repo.
  const directory = await mkdtemp(path.join(tmpdir(), "svc-logs-"));
  t.teardown(() => rm(directory, { recursive: true, force: true }));
  const settings = loggerSettings({ env: { NODE_ENV: "production" }, logDirectory: directory });
  t.deepEqual(transportKinds(settings), ["Console", "File", "File"]);
  t.is(settings.level, "info");
});

test("file logging is off by default in tests and the level is warn", (t) => {
  const settings = loggerSettings({ env: { NODE_ENV: "test" } });
  t.deepEqual(transportKinds(settings), ["Console"]);
  t.is(settings.level, "warn");
});

test("options pick the level, drop files or console and add transports", (t) => {
  const capture = new LogCapture();
  const settings = loggerSettings({
    env: { NODE_ENV: "development" },
    level: "debug",
    disableFileLogging: true,
    disableConsoleLogging: true,
    transports: [capture],
  });
  t.deepEqual(transportKinds(settings), ["LogCapture"]);
  t.is(settings.level, "debug");
});

test("log files go to the configured directory", async (t) => {
  const directory = await mkdtemp(path.join(tmpdir(), "svc-logs-"));
  t.teardown(() => rm(directory, { recursive: true, force: true }));
  const log = createSvcLogger({ env: { NODE_ENV: "development" }, disableConsoleLogging: true, logDirectory: directory });
  log.error("written to disk");
  await new Promise<void>((resolve) => {
    log.on("finish", resolve);
    log.end();
  });
  t.deepEqual((await readdir(directory)).sort(), ["combined.log", "error.log"]);
});
