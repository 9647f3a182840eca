#!/usr/bin/env node
/**
 * `svc-db`: runs the embedded MongoDB-compatible engine as a standalone server, for tools that
 * want a database on a port (mongosh, Compass, another process's tests).
 *
 * @example
 * svc-db --dbpath .svc/data --port 27017
 * mongosh "mongodb://127.0.0.1:27017/?directConnection=true"
 */
import { parseArgs } from "node:util";
import { startEmbeddedMongo } from "../adapters/embedded-mongo/index.js";
import type { EngineLogger } from "../adapters/embedded-mongo/index.js";
import { exitOnSignals } from "./exit-on-signals.js";
import { invokedDirectly } from "./invoked-directly.js";

const USAGE = `usage: svc-db [--dbpath <dir>] [--port <n>] [--bind_ip <host>] [--replSet <name>]
              [--journal-fsync always|interval|never] [--journalCommitInterval <ms>] [--quiet]

  --dbpath                 data directory (locked, journaled, recovered at start); in-memory when omitted
  --port                   TCP port, 0 to 65535 (default 27017; 0 picks a free one)
  --bind_ip                interface to listen on (default 127.0.0.1)
  --replSet                replica set name reported by hello (default svc-rs)
  --journal-fsync          when acknowledged writes reach the disk (default always: fsync before each reply)
  --journalCommitInterval  with --journal-fsync interval: fsync period in ms (default 100)
  --quiet                  log only errors`;

/** A wrong command line: the one failure shown with the usage text. */
class UsageError extends Error {}

/** Parses argv and runs the server until SIGINT/SIGTERM. Exported for tests. */
export async function runSvcDb(argv: readonly string[]): Promise<{ uri: string; stop: () => Promise<void> }> {
  const values = parseCommandLine(argv);
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  // Decimal digits only: Number() would also take "", "1e3" and "0x10".
  const port = values.port === undefined ? 27017 : /^\d{1,5}$/.test(values.port) ? Number(values.port) : NaN;
  if (!(port <= 65535)) throw new UsageError(`svc-db: invalid --port "${values.port}" (a decimal integer from 0 to 65535)`);
  const fsync = values["journal-fsync"];
  if (fsync !== undefined && fsync !== "always" && fsync !== "interval" && fsync !== "never") {
    throw new UsageError(`svc-db: invalid --journal-fsync ${fsync} (always, interval or never)`);
  }
  const interval = values.journalCommitInterval;
  const fsyncIntervalMs = interval === undefined ? undefined : /^\d{1,9}$/.test(interval) ? Number(interval) : NaN;
  if (fsyncIntervalMs !== undefined && !(fsyncIntervalMs > 0)) {
    throw new UsageError(`svc-db: invalid --journalCommitInterval "${interval}" (a decimal number of milliseconds above 0)`);
  }
  const logger: EngineLogger = {
    error: (message, ...details) => console.error(message, ...details),
    warn: values.quiet ? () => {} : (message, ...details) => console.warn(message, ...details),
    info: values.quiet ? () => {} : (message, ...details) => console.log(message, ...details),
    debug: () => {},
  };
  const running = await startEmbeddedMongo({
    dbPath: values.dbpath,
    port,
    host: values.bind_ip ?? "127.0.0.1",
    logger,
    ...(values.replSet ? { replicaSetName: values.replSet } : {}),
    journal: { ...(fsync ? { fsync } : {}), ...(fsyncIntervalMs ? { fsyncIntervalMs } : {}) },
  });
  const recovery = running.journal?.recovery;
  const storage = recovery
    ? `data directory ${values.dbpath}, journal fsync ${running.journal!.options.fsync}; recovered ${recovery.snapshotDocuments} documents from the snapshot and ${recovery.replayedBatches} journaled batches`
    : "in memory";
  logger.info(`svc-db listening on ${running.uri} (replica set "${running.replicaSetName}"; ${storage})`);
  return { uri: running.uri, stop: () => running.stop() };
}

const OPTIONS = {
  dbpath: { type: "string" },
  port: { type: "string" },
  bind_ip: { type: "string" },
  replSet: { type: "string" },
  "journal-fsync": { type: "string" },
  journalCommitInterval: { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * parseArgs calls `--port -1` "ambiguous" (the value looks like an option); no option starts
 * with a digit, so `-<digit>...` after a value-taking option is joined to it and judged as a value.
 */
function joinNegativeNumbers(argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.startsWith("--") ? argv[i]!.slice(2) : undefined;
    const next = argv[i + 1];
    if (name && OPTIONS[name as keyof typeof OPTIONS]?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      args.push(`--${name}=${next}`);
      i++;
    } else {
      args.push(argv[i]!);
    }
  }
  return args;
}

function parseCommandLine(argv: readonly string[]) {
  try {
    return parseArgs({ args: joinNegativeNumbers(argv), options: OPTIONS, strict: true }).values;
  } catch (error) {
    // One line: parseArgs words its "ambiguous" refusal over three.
    throw new UsageError(`svc-db: ${(error as Error).message.replaceAll("\n", " ")}`);
  }
}

/** A failed start as one line: the error's stable code (SVC_DB_JOURNAL_CORRUPT...) and message. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !error.message.includes(code) ? `svc-db: ${code}: ${error.message}` : `svc-db: ${error.message}`;
}

/** True when this file is the process entry point (also through the npm bin symlink). */
if (invokedDirectly(import.meta.url)) {
  runSvcDb(process.argv.slice(2)).then(
    ({ stop }) => void exitOnSignals(stop),
    (error: unknown) => {
      if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
      else console.error(describeFailure(error));
      process.exit(1);
    },
  );
}
