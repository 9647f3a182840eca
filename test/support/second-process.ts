// A second app process on this test process's database, for tests of what holds when an app runs
// as several processes behind a load balancer (test/scale-out). Two halves: the test starts an
// entry module with `startSecondProcess(entry)`; the entry builds its app with
// `serveSecondProcess(...)`, which prints `READY {...}` once it serves, relays the app's error lines
// to stderr and stops cleanly on SIGTERM. (test/support/sync-second-process.ts is the sync tests'
// entry, on this helper.)
import type { TestFn } from "ava";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import type { LogCapture } from "../../plugins/logging/log-capture.js";

/** What a second process announces once it serves. */
export interface SecondProcessAddress {
  url: string;
  socketUrl?: string;
}

export interface SecondProcess extends SecondProcessAddress {
  readonly child: ChildProcessWithoutNullStreams;
  /** What the process wrote to stderr so far: its app's error lines, and anything that crashed. */
  output(): string;
  /** SIGTERM, resolved once the process exited (at once if it already had). */
  stop(): Promise<void>;
}

/**
 * Starts `entry` (a module calling `serveSecondProcess`) in a new Node process on this process's
 * test database; resolves once it serves. Stop it in `test.after.always`.
 *
 * @example
 * const second = startSecondProcess(new URL("./flags-second-process.ts", import.meta.url));
 * test.after.always(async () => (await second.catch(() => undefined))?.stop());
 */
export async function startSecondProcess(entry: URL, env: Record<string, string> = {}): Promise<SecondProcess> {
  const database = await startTestDatabase();
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), entry.pathname], {
    // SVC_TEST_DB_URI keeps the child from starting an engine of its own that it would not use.
    env: { ...process.env, NODE_ENV: "test", ...env, SVC_TEST_DB_URI: database.uri, SVC_SECOND_DB_URI: database.uri, SVC_SECOND_DB_NAME: database.dbName },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = await new Promise<SecondProcessAddress>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /^READY (.*)$/m.exec(stdout);
      if (line) resolve(JSON.parse(line[1]!) as SecondProcessAddress);
    });
    child.once("exit", (code) => reject(new Error(`the second process exited (${code}) before serving: ${stdout}${output}`)));
  });
  return {
    ...ready,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** What an entry's app builder gets: the parent's database, and where to register its clean-up. */
export interface SecondProcessSetup {
  database: { uri: string; dbName: string };
  teardown: (fn: () => Promise<void> | void) => void;
}

/**
 * The entry module's half: builds and starts the app with `start` on the parent's database,
 * announces its address, relays its error lines to stderr (the parent asserts there are none),
 * and stops it on SIGTERM.
 *
 * @example
 * await serveSecondProcess(async ({ database, teardown }) => {
 *   const { app, logs } = await myTestApp({ teardown }, { database });
 *   const { url, socketUrl } = await app.start();
 *   return { url, socketUrl, logs };
 * });
 */
export async function serveSecondProcess(start: (setup: SecondProcessSetup) => Promise<SecondProcessAddress & { logs: LogCapture }>): Promise<void> {
  const uri = process.env.SVC_SECOND_DB_URI;
  const dbName = process.env.SVC_SECOND_DB_NAME;
  if (!uri || !dbName) throw new Error("SVC_SECOND_DB_URI and SVC_SECOND_DB_NAME name the parent's database");
  const stops: Array<() => Promise<void> | void> = [];
  const { logs, ...address } = await start({ database: { uri, dbName }, teardown: (fn) => void stops.push(fn) });
  process.stdout.write(`READY ${JSON.stringify(address)}\n`);

  let reported = 0;
  const reportErrors = setInterval(() => {
    for (const line of logs.lines.slice(reported)) if (line.level === "error") process.stderr.write(`${JSON.stringify(line)}\n`);
    reported = logs.lines.length;
  }, 50);

  process.once("SIGTERM", () => {
    void (async () => {
      clearInterval(reportErrors);
      for (const stop of stops.reverse()) await stop();
      await stopTestDatabase();
      process.exit(0);
    })();
  });
}

/**
 * A test file's two app processes: this one's app from `startFirst` (given the teardown that
 * stops it), then the second from `entry` once the first serves, with `secondEnv` added to its
 * environment. After the file's tests, what `closers` holds (sockets) closes, then the second
 * process, the first app and the test database stop.
 *
 * @example
 * const { first, second, closers } = twoProcesses(test, (t) => flagsApp(t), new URL("./flags-second-process.ts", import.meta.url));
 */
export function twoProcesses<A>(
  test: TestFn,
  startFirst: (t: { teardown: (fn: () => Promise<void> | void) => void }) => Promise<A>,
  entry: URL,
  secondEnv: Promise<Record<string, string>> | Record<string, string> = {},
): { first: Promise<A>; second: Promise<SecondProcess>; closers: Array<() => void> } {
  let stopFirst: (() => Promise<void> | void) | undefined;
  const first = startFirst({ teardown: (fn) => void (stopFirst = fn) });
  const second = first.then(async () => startSecondProcess(entry, await secondEnv));
  const closers: Array<() => void> = [];
  test.after.always(async () => {
    closers.forEach((close) => close());
    await (await second.catch(() => undefined))?.stop();
    await stopFirst?.();
    await stopTestDatabase();
  });
  return { first, second, closers };
}
