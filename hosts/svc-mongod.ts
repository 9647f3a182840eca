#!/usr/bin/env node
/**
 * `svc-mongod`: the embedded engine behind a `mongod` command line, for test set-ups written for
 * a real server. `MONGOMS_SYSTEM_BINARY=$(npx which svc-mongod)` makes mongodb-memory-server
 * (MongoMemoryServer, and MongoMemoryReplSet with one member) run on it, offline.
 *
 * @example
 * svc-mongod --version                          # db version v7.0.14
 * svc-mongod --port 27018 --dbpath /tmp/db --replSet rs0
 */
import { startEmbeddedMongo } from "../adapters/embedded-mongo/index.js";
import type { EngineLogger } from "../adapters/embedded-mongo/index.js";
import { REPORTED_VERSION } from "../adapters/embedded-mongo/commands/server-commands.js";
import { exitOnSignals } from "./exit-on-signals.js";
import { invokedDirectly } from "./invoked-directly.js";
import { mongodLogLine, mongodVersionText, parseMongodCommandLine } from "./svc-mongod/mongod-command-line.js";

const USAGE = `usage: svc-mongod [--port <n>] [--bind_ip <host>] [--dbpath <dir>] [--replSet <name>]
                  [--storageEngine ephemeralForTest|inMemory|wiredTiger] [--setParameter enableTestCommands=1]
                  [--version]
Other mongod options are accepted and ignored (listed at start-up).`;

/** A wrong command line: the one failure shown with the usage text. */
class UsageError extends Error {}

/** A running `svc-mongod`. */
export interface RunningSvcMongod {
  readonly uri: string;
  stop(): Promise<void>;
}

/**
 * Runs the server for a mongod command line, writing mongod's structured log lines with `write`
 * (stdout in the executable). Returns undefined for `--version`/`--help` (printed, nothing started).
 *
 * @example
 * const running = await runSvcMongod(["--port", "0", "--replSet", "rs0"], (line) => console.log(line));
 */
export async function runSvcMongod(
  argv: readonly string[],
  write: (line: string) => void,
  onShutdownCommand?: () => void,
): Promise<RunningSvcMongod | undefined> {
  let line: ReturnType<typeof parseMongodCommandLine>;
  try {
    line = parseMongodCommandLine(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (line.version) {
    write(mongodVersionText(REPORTED_VERSION).trimEnd());
    return undefined;
  }
  if (line.help) {
    write(USAGE);
    return undefined;
  }
  const log = (severity: "I" | "W" | "E", component: string, id: number) => (message: string, ...details: unknown[]) =>
    write(mongodLogLine(severity, component, id, message, details.length > 0 ? { details: details.map(String) } : undefined));
  const logger: EngineLogger = { error: log("E", "-", 0), warn: log("W", "-", 0), info: log("I", "REPL", 21331), debug: () => {} };
  if (line.ignored.length > 0) {
    write(mongodLogLine("W", "CONTROL", 1, "svc-mongod ignores these mongod options", { ignored: line.ignored }));
  }
  const running = await startEmbeddedMongo({
    port: line.port,
    host: line.bindIp,
    logger,
    ...(line.inMemory ? {} : { dbPath: line.dbPath, journal: { fsync: "interval" as const } }),
    ...(line.replSet !== undefined ? { replicaSetName: line.replSet } : {}),
    ...(line.enableTestCommands !== undefined ? { enableTestCommands: line.enableTestCommands } : {}),
    ...(onShutdownCommand ? { onShutdownCommand } : {}),
  });
  write(
    mongodLogLine("I", "CONTROL", 4615611, "svc-mongod: the svc embedded engine started as mongod", {
      version: REPORTED_VERSION,
      replicaSet: running.replicaSetName,
      storage: line.inMemory ? "memory" : line.dbPath,
    }),
  );
  write(mongodLogLine("I", "NETWORK", 23016, "Waiting for connections", { port: running.port, ssl: "off" }));
  return { uri: running.uri, stop: () => running.stop() };
}

if (invokedDirectly(import.meta.url)) {
  let running: RunningSvcMongod | undefined;
  // The shutdown command stops it as the signals do.
  const shutdown = exitOnSignals(async () => running?.stop());
  runSvcMongod(process.argv.slice(2), (text) => process.stdout.write(`${text}\n`), shutdown).then(
    (started) => {
      if (started) running = started;
    },
    (error: unknown) => {
      // mongod's wording for a failed start, which mongodb-memory-server reports as such.
      const message = error instanceof Error ? error.message : String(error);
      process.stdout.write(`${mongodLogLine("E", "CONTROL", 20557, "DBException in initAndListen, terminating", { error: message })}\n`);
      // The usage only for a wrong command line: after a failed start it reads as if the flags were wrong.
      if (error instanceof UsageError) console.error(USAGE);
      process.exit(1);
    },
  );
}
