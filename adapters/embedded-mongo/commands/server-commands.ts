import { Long } from "bson";
import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { ResolvedEngineOptions } from "../engine-options.js";
import { MAX_BSON_OBJECT_SIZE } from "../wire/wire-constants.js";
import type { CommandHandler } from "./command-context.js";
import { isPlainDocument } from "./command-arguments.js";

/** The MongoDB release whose behaviour (wire version 21) the engine follows. */
export const REPORTED_VERSION = "7.0.14";

/** `ping`: liveness. */
export const pingCommand: CommandHandler = () => ({ ok: 1 });

/** `buildInfo`: version information drivers and tools read. */
export const buildInfoCommand: CommandHandler = () => ({
  version: REPORTED_VERSION,
  gitVersion: "svc-embedded-mongo",
  versionArray: [7, 0, 14, 0],
  modules: [],
  allocator: "system",
  javascriptEngine: "none",
  sysInfo: "deprecated",
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  storageEngines: ["inMemory"],
  openssl: { running: "disabled", compiled: "disabled" },
  buildEnvironment: {},
  ok: 1,
});

/** Server parameters a client may ask for; `{getParameter: "*"}` returns all. */
function parameters(options: ResolvedEngineOptions): Document {
  return {
    featureCompatibilityVersion: { version: "7.0" },
    authenticationMechanisms: [],
    requireApiVersion: false,
    cursorTimeoutMillis: Long.fromNumber(options.cursorIdleTimeoutMs),
    transactionLifetimeLimitSeconds: options.transactionLifetimeLimitSeconds,
    maxTransactionLockRequestTimeoutMillis: 5,
    internalQueryMaxBlockingSortMemoryUsageBytes: 100 * 1024 * 1024,
    logLevel: 0,
  };
}

/** `getParameter`: `{getParameter: 1, name: 1}` or `{getParameter: "*"}`. */
export const getParameterCommand: CommandHandler = (ctx) => {
  const all = parameters(ctx.services.options);
  if (ctx.command["getParameter"] === "*" || (isPlainDocument(ctx.command["getParameter"]) && ctx.command["getParameter"]["allParameters"] === true)) {
    return { ...all, ok: 1 };
  }
  const reply: Document = {};
  for (const key of Object.keys(ctx.command)) {
    if (key === "getParameter" || key.startsWith("$") || key === "lsid" || key === "comment") continue;
    if (key in all) reply[key] = all[key];
  }
  if (Object.keys(reply).length === 0) throw new EngineError(ErrorCodes.InvalidOptions, "no option found to get");
  reply["ok"] = 1;
  return reply;
};

/** `whatsmyuri`: the client's own address as the server sees it. */
export const whatsMyUriCommand: CommandHandler = (ctx) => ({ you: ctx.connection.remoteAddress, ok: 1 });

/** `serverStatus`: the minimal shape monitoring tools expect. */
export const serverStatusCommand: CommandHandler = (ctx) => {
  const services = ctx.services;
  const uptimeMillis = Date.now() - services.startedAt.getTime();
  return {
    host: services.advertisedAddress,
    version: REPORTED_VERSION,
    process: "svc-db",
    pid: Long.fromNumber(process.pid),
    uptime: Math.floor(uptimeMillis / 1000),
    uptimeMillis: Long.fromNumber(uptimeMillis),
    uptimeEstimate: Long.fromNumber(Math.floor(uptimeMillis / 1000)),
    localTime: new Date(),
    connections: { current: services.connectionCount, available: 1_000_000 },
    storageEngine: { name: "inMemory", supportsCommittedReads: true, persistent: false },
    metrics: { cursor: { open: { total: Long.fromNumber(services.cursors.size) } } },
    ok: 1,
  };
};

/** `hostInfo`: enough for tools that print the machine. */
export const hostInfoCommand: CommandHandler = () => ({
  system: { currentTime: new Date(), hostname: "localhost", cpuArch: process.arch, numCores: 1 },
  os: { type: process.platform, name: process.platform },
  extra: {},
  ok: 1,
});

/** `getCmdLineOpts`. */
export const getCmdLineOptsCommand: CommandHandler = () => ({ argv: ["svc-db"], parsed: {}, ok: 1 });

/** `getLog`: the engine keeps no in-memory log. */
export const getLogCommand: CommandHandler = (ctx) =>
  ctx.command["getLog"] === "*" ? { names: ["global", "startupWarnings"], ok: 1 } : { totalLinesWritten: 0, log: [], ok: 1 };

/** `connectionStatus`: no authentication. */
export const connectionStatusCommand: CommandHandler = () => ({
  authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] },
  ok: 1,
});

/** `replSetGetStatus`: one healthy primary, so tools waiting for a replica set proceed. */
export const replSetGetStatusCommand: CommandHandler = (ctx) => {
  const services = ctx.services;
  const optime = { ts: services.storage.clock.current(), t: Long.ONE };
  return {
    set: services.options.replicaSetName,
    date: new Date(),
    myState: 1,
    term: Long.ONE,
    members: [
      {
        _id: 0,
        name: services.advertisedAddress,
        health: 1,
        state: 1,
        stateStr: "PRIMARY",
        uptime: Math.floor((Date.now() - services.startedAt.getTime()) / 1000),
        optime,
        self: true,
      },
    ],
    ok: 1,
  };
};

