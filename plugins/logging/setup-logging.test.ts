import test from "ava";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import winston from "winston";
import type TransportStream from "winston-transport";
import { createSvcLogger, loggerSettings, type ConsoleTarget, type SetupLoggingOptions } from "./create-logger.js";
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

// ESC [: the start of every ANSI colour sequence.
const ANSI = /\u001b\[/;
// Where winston formats leave the finished line (triple-beam's MESSAGE).
const MESSAGE = Symbol.for("message");

/** The line the console transport of these settings would write for one entry. */
function consoleLine(options: SetupLoggingOptions, target: ConsoleTarget): string {
  const transports = ([] as TransportStream[]).concat(loggerSettings({ disableFileLogging: true, ...options }, target).transports ?? []);
  const format = transports.find((transport) => transport instanceof winston.transports.Console)!.format!;
  const info = format.transform({ level: "warn", message: "Disk almost full", [Symbol.for("level")]: "warn" }, format.options);
  return (info as Record<symbol, string>)[MESSAGE]!;
}

test("console text has ANSI colours on a terminal and none when piped", (t) => {
  const env = { NODE_ENV: "development" };
  t.regex(consoleLine({ env }, { isTTY: true }), ANSI);
  const piped = consoleLine({ env }, { isTTY: false });
  t.notRegex(piped, ANSI);
  t.true(piped.includes("warn: Disk almost full"));
});

test("NO_COLOR removes colours on a terminal; FORCE_COLOR puts them into a pipe", (t) => {
  t.notRegex(consoleLine({ env: { NODE_ENV: "development", NO_COLOR: "1" } }, { isTTY: true }), ANSI);
  t.regex(consoleLine({ env: { NODE_ENV: "development", FORCE_COLOR: "1" } }, { isTTY: false }), ANSI);
});

test("disableConsoleColors decides in code; JSON lines are never coloured", (t) => {
  const env = { NODE_ENV: "development" };
  t.notRegex(consoleLine({ env, disableConsoleColors: true }, { isTTY: true }), ANSI);
  t.regex(consoleLine({ env, disableConsoleColors: false }, { isTTY: false }), ANSI);
  t.notRegex(consoleLine({ env: { NODE_ENV: "production", FORCE_COLOR: "1" } }, { isTTY: true }), ANSI);
});
