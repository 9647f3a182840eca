import inspector from "node:inspector";
import path from "node:path";
import express, { type Request, type RequestHandler } from "express";
import winston from "winston";
import { DATABASE } from "../../../contracts/database.js";
import { HTTP_ROUTER } from "../../../contracts/http.js";
import { MODEL_REGISTRY } from "../../../contracts/model-registry.js";
import { HttpErrors } from "../../../kernel/http-errors.js";
import type { PluginContext, SvcPlugin } from "../../../kernel/plugin.js";
import { KERNEL } from "../../../kernel/tokens.js";
import { ClientStateStore } from "./client-state-store.js";
import { DEV_ROUTES_PATH, removeDevServerFile, writeDevServerFile, type DevServerAnnouncement } from "./dev-server-file.js";
import { describeApp } from "./describe-app.js";

export interface DevRuntimeOptions {
  /** The project directory whose `.svc/dev-server.json` announces this server (default `process.cwd()`). */
  projectDir?: string;
  /** Browser clients whose reported state is kept (the oldest report is dropped first); default 20. */
  maxClients?: number;
}

/** The dev-runtime plugin, plus the step only the caller of `app.start()` can take. */
export interface DevRuntimePlugin extends SvcPlugin {
  /**
   * Writes `.svc/dev-server.json` for `svc-mcp-local` (URL, embedded database URI, inspector URL,
   * log files); removed again on stop. Resolves the file's path, or undefined in production.
   */
  announce(running: { readonly url: string }): Promise<string | undefined>;
}

/**
 * Development-only debug channel for `svc-mcp-local`'s runtime tools. Outside production it mounts
 * `GET /__svc/dev/info` (plugins, models, routes), `POST /__svc/dev/client-state` (where a
 * browser's `reportClientState()` posts its data-layer state) and `GET /__svc/dev/client-state`,
 * answering loopback callers only; `announce()` then tells local tools where the server is. In
 * production it does nothing at all.
 *
 * @example
 * const dev = devRuntime();
 * const running = await app.register(dev).start();
 * await dev.announce(running);
 */
export function devRuntime(options: DevRuntimeOptions = {}): DevRuntimePlugin {
  const projectDir = path.resolve(options.projectDir ?? process.cwd());
  const store = new ClientStateStore(options.maxClients ?? 20);
  let context: PluginContext | undefined;
  let announced = false;

  return {
    name: "dev-runtime",
    start(ctx) {
      if (ctx.config.isProduction) return;
      context = ctx;
      const routes = express.Router();
      routes.use(loopbackOnly);
      routes.get("/info", (_req, res) => {
        res.json({ data: describeApp(ctx.resolve(KERNEL), ctx.container.tryResolve(MODEL_REGISTRY)) });
      });
      routes.get("/client-state", (req, res) => {
        const clientId = typeof req.query.clientId === "string" ? req.query.clientId : undefined;
        res.json({ data: { clients: store.list(clientId) } });
      });
      routes.post("/client-state", (req, res) => {
        const problem = store.accept(req.body as unknown);
        if (problem) throw HttpErrors.BAD_REQUEST({ detail: problem });
        res.status(204).end();
      });
      ctx.resolve(HTTP_ROUTER).use(DEV_ROUTES_PATH, routes);
    },
    async announce(running) {
      if (!context) return undefined;
      announced = true;
      const announcement: DevServerAnnouncement = {
        pid: process.pid,
        url: running.url,
        startedAt: new Date().toISOString(),
        nodeEnv: context.config.nodeEnv,
        database: embeddedDatabase(context),
        inspectorUrl: inspector.url(),
        logFiles: logFiles(context.logger),
      };
      return writeDevServerFile(projectDir, announcement);
    },
    async stop() {
      if (announced) await removeDevServerFile(projectDir);
      announced = false;
    },
  };
}

// The app may listen on every interface; its debug routes still answer this machine only (others
// leave this router and get the app's usual 404).
const loopbackOnly: RequestHandler = (req: Request, _res, next) => {
  next(isLoopbackAddress(req.socket.remoteAddress) ? undefined : "router");
};

/**
 * True for an address of this machine's loopback interface (IPv4 127/8, IPv6 `::1`, and IPv4
 * loopback mapped into IPv6), as a socket's `remoteAddress` shows it.
 *
 * @example
 * isLoopbackAddress("::ffff:127.0.0.1"); // true
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address);
}

function embeddedDatabase(ctx: PluginContext): DevServerAnnouncement["database"] {
  const database = ctx.container.tryResolve(DATABASE);
  // An external DB_URI may carry a password: local tools read it from their own environment.
  if (!database || database.kind !== "embedded") return undefined;
  const { host, port, name } = database.connection;
  return { uri: `mongodb://${host}:${port}/?directConnection=true`, name };
}

function logFiles(logger: unknown): DevServerAnnouncement["logFiles"] {
  if (!(logger instanceof winston.Logger)) return undefined;
  const files: { combined?: string; error?: string } = {};
  for (const transport of logger.transports) {
    if (!(transport instanceof winston.transports.File)) continue;
    const file = path.resolve(transport.dirname, transport.filename);
    if (transport.level === "error") files.error = file;
    else files.combined ??= file;
  }
  return files.combined || files.error ? files : undefined;
}
