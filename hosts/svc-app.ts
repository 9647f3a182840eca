import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express, RequestHandler, Router } from "express";
import { loadConfig, type SvcConfig } from "../kernel/config.js";
import type { Provider, Token } from "../kernel/container.js";
import type { Environment } from "../kernel/environment.js";
import { defineErrors } from "../kernel/errors.js";
import { SvcKernel, type KernelOptions } from "../kernel/kernel.js";
import { LOGGER, type SvcLogger } from "../kernel/logger.js";
import { isSvcPlugin, type SvcPlugin } from "../kernel/plugin.js";
import { HTTP_ROUTER, MOUNT_AT, type PathlessRouter } from "../contracts/http.js";
import { SOCKET_SERVER } from "../contracts/socket-server.js";
import { probesPlugin } from "../plugins/health/index.js";
import { redisPlugin } from "../plugins/redis/index.js";
import { databasePlugin, type DatabasePluginOptions } from "../plugins/database/database-plugin.js";
import { logger as globalLogger } from "../plugins/logging/logger.js";
import { loggingPlugin } from "../plugins/logging/logging-plugin.js";
import { mcpPlugin } from "../plugins/mcp/mcp-plugin.js";
import { notifiersPlugin } from "../plugins/notifiers/notifiers-plugin.js";
import { warnWhenAuthenticationMissing } from "./authentication-warning.js";
import { answerClientErrors } from "./client-error-answers.js";
import { bodyLimitBytes, createHttpStack, DEFAULT_BODY_LIMIT, type HttpStackOptions } from "./http-stack.js";
import { toAPIError } from "./error-response.js";
import { gracefulClose, type GracefulClose } from "./graceful-close.js";
import { describeListenAddress, httpOrigin } from "./listen-address.js";
import { stopOnShutdownSignal } from "./shutdown-signals.js";
import { SocketServerHost, type SocketServerOptions } from "./socket-server.js";

export const HostErrors = defineErrors("HOST", {
  UNMOUNTED_ROUTER: {
    message: (name: string) =>
      `"${name}" was created without a path: use modelRouter(path, Model, options) with SvcApp, ` +
      `or mount it with router.use(path, ...) inside setupServer's addRoutes`,
  },
  NOT_REGISTRABLE: {
    message: (what: string) => `register() takes an SvcPlugin, a model router or an express Router, not ${what}`,
  },
  ALREADY_BUILT: { message: () => "The app is already built; register plugins and middleware before build()" },
  NOT_BUILT: { message: () => "The app is not built yet: await app.build() (or app.start()) before app.resolve()" },
  STOPPED: {
    message: (action: string) =>
      `Cannot ${action}: this app has been stopped, and an SvcApp runs once; create a new SvcApp (and register its plugins) to run again`,
  },
  PORT_IN_USE: {
    message: (where: string) => `Cannot listen on ${where}: another process is using that port (stop it, or choose another with PORT=<n>)`,
  },
  LISTEN_FAILED: { message: (where: string, reason: string) => `Cannot listen on ${where}: ${reason}` },
  BODY_LIMIT_INVALID: {
    message: (given: string) =>
      `bodyLimit must be a number of bytes above 0 or a size string such as "512kb" or "1.5mb", not ${given}`,
  },
});

export interface SvcAppOptions extends HttpStackOptions {
  /** Environment variables to read (default `process.env`). Ignored when `config` is given. */
  env?: Environment;
  /** A ready configuration (from `loadConfig`). */
  config?: SvcConfig;
  /** Database options; `false` runs without a database (for pure HTTP apps and tests). */
  database?: DatabasePluginOptions | false;
  /** Logger for kernel and host messages (default: the framework's global winston logger). */
  logger?: SvcLogger;
  /** Upper bound for letting in-flight requests finish on stop, in ms (default 10 s). */
  shutdownTimeoutMs?: number;
  /**
   * Stop gracefully on SIGINT/SIGTERM once `start()` has listened (default true), then exit: 0
   * after a clean stop, 1 (with one error line) when requests outlived `shutdownTimeoutMs` and
   * were cut off, or stopping failed.
   */
  handleSignals?: boolean;
  /** Port for `start()`; default `PORT` (3000). 0 picks a free port. */
  port?: number;
  /**
   * Interface `start()` listens on (and a separate socket port, if any); default `HOST`, which
   * itself defaults to `127.0.0.1` outside production and to all interfaces in production.
   */
  host?: string;
  /** The OpenAPI document's info block. */
  info?: KernelOptions["info"];
  /** Default plugin phase limits. */
  timeouts?: KernelOptions["timeouts"];
  /**
   * The socket server plugins get from `SOCKET_SERVER` (created only if one resolves it): on the
   * app's HTTP server by default; on a port of its own with `sockets.port` or `WEBSOCKET_PORT`.
   */
  sockets?: SocketServerOptions;
}

/** A listening app. */
export interface RunningApp {
  readonly app: Express;
  readonly server: Server;
  readonly port: number;
  /**
   * A URL a client on this machine can use: the bound address (`http://127.0.0.1:3000`,
   * `http://[::1]:3000`), or loopback when the server listens on every interface.
   */
  readonly url: string;
  /** Where socket.io clients connect (`url` unless sockets have their own port); undefined without a socket server. */
  readonly socketUrl?: string;
  stop(): Promise<void>;
}

/**
 * The fluent app builder. Register plugins and model routers, add middleware, then `build()` for
 * an express app (e.g. for supertest) or `start()` to listen on `PORT`.
 *
 * @example
 * const app = new SvcApp()
 *   .register(modelRouter("/todos", Todo, { permissions: { list: [Permissions.IsAuthenticated] } }))
 *   .addMiddleware((req, _res, next) => next());
 * const { url } = await app.start();
 * // later
 * await app.stop();
 */
export class SvcApp {
  readonly kernel: SvcKernel;
  private readonly options: SvcAppOptions;
  private readonly middleware: RequestHandler[] = [];
  private readonly overrides: Array<(kernel: SvcKernel) => void> = [];
  private routerCount = 0;
  private built?: Promise<Express>;
  /** Set once build() has started every plugin: what resolve() may hand out is then ready. */
  private ready = false;
  private running?: RunningApp;
  private closing?: GracefulClose;
  /** Connections stop() had to cut because their requests outlived `shutdownTimeoutMs`. */
  private cutConnections = 0;
  private readonly sockets: SocketServerHost;
  private unregisterSignals?: () => void;
  private stopping?: Promise<void>;

  constructor(options: SvcAppOptions = {}) {
    this.options = options;
    const logger = options.logger ?? globalLogger;
    let config: SvcConfig;
    try {
      config = options.config ?? loadConfig(options.env ?? process.env);
    } catch (error) {
      // `new SvcApp().start()` in a main: a malformed PORT or HOST is a failed start as well.
      logStartFailure(logger, error);
      throw error;
    }
    this.kernel = new SvcKernel({
      config,
      logger,
      info: options.info,
      timeouts: options.timeouts,
    });
    this.kernel.container.bind(LOGGER, { useValue: logger });
    this.sockets = new SocketServerHost({
      container: this.kernel.container,
      logger: () => this.kernel.pluginContext.logger,
      // Setting WEBSOCKET_PORT is what asks for a separate port (that one); unset, sockets share the HTTP server.
      port: options.sockets?.port ?? this.kernel.config.websocketPort ?? "shared",
      path: options.sockets?.path,
      maxPayloadBytes: options.sockets?.maxPayloadBytes,
      host: options.host ?? this.kernel.config.host,
      cors: options.cors,
      shutdownTimeoutMs: options.shutdownTimeoutMs,
    });
    this.kernel.container.bind(SOCKET_SERVER, { useFactory: () => this.sockets.open() });
    // With CACHE_URL, Redis: connected first and closed last, since throttles and sockets use it.
    this.kernel.add(redisPlugin());
    if (options.database !== false) this.kernel.add(databasePlugin(options.database ?? {}));
    // Every app gets request logging, the error tracker and slow-database-operation logging.
    this.kernel.add(loggingPlugin({ database: options.database !== false }));
    this.kernel.add(notifiersPlugin());
    // GET /healthz and /readyz, for load balancers and orchestrators.
    this.kernel.add(probesPlugin());
    // Mounts `POST /mcp` only when a model router has `mcp` or a custom tool is registered.
    this.kernel.add(mcpPlugin({ translateError: toAPIError }));
  }

  get config(): SvcConfig {
    return this.kernel.config;
  }

  /**
   * Adds a plugin, a model router (`modelRouter(path, Model, options)`) or a plain express Router
   * (mounted at the root, after authentication).
   */
  register(pluginOrRouter: SvcPlugin | Router): this {
    if (this.built) throw HostErrors.ALREADY_BUILT();
    this.kernel.add(toPlugin(pluginOrRouter, () => `router-${++this.routerCount}`));
    return this;
  }

  /** Adds middleware that runs after authentication and request logging, before the routes. */
  addMiddleware(handler: RequestHandler): this {
    if (this.built) throw HostErrors.ALREADY_BUILT();
    this.middleware.push(handler);
    return this;
  }

  /**
   * Replaces a binding after plugins have registered and before they start: how tests and users
   * swap an adapter (e.g. a fake mailer).
   */
  override<T>(key: Token<T>, provider: Provider<T>): this {
    if (this.built) throw HostErrors.ALREADY_BUILT();
    this.overrides.push((kernel) => kernel.container.override(key, provider));
    return this;
  }

  /**
   * What the built app binds to `key`, as its plugins resolve it (an `override` included): how
   * tests and scripts reach a plugin's service. Throws `HOST_NOT_BUILT` until `build()` (or
   * `start()`) has resolved.
   *
   * @example
   * await app.build();
   * const comms = app.resolve(COMMS_SERVICE);
   * await comms.sendMail({ to: "ada@example.com", subject: "Hi", text: "Hello" });
   */
  resolve<T>(key: Token<T>): T {
    if (!this.ready) throw HostErrors.NOT_BUILT();
    return this.kernel.pluginContext.resolve(key);
  }

  /** Registers and starts every plugin (opening the database) and returns the express app. */
  build(): Promise<Express> {
    // A stopped kernel cannot start again: handing back the old app would serve stopped plugins.
    if (this.stopping) return Promise.reject(HostErrors.STOPPED("build()"));
    this.built ??= (async () => {
      const given = this.options.bodyLimit ?? DEFAULT_BODY_LIMIT;
      const bodyLimit = bodyLimitBytes(given);
      if (bodyLimit === undefined) throw HostErrors.BODY_LIMIT_INVALID(typeof given === "string" ? JSON.stringify(given) : String(given));
      const { app } = createHttpStack(this.kernel, { ...this.options, bodyLimit, middleware: this.middleware });
      this.kernel.register();
      for (const apply of this.overrides) apply(this.kernel);
      await this.kernel.start();
      warnWhenAuthenticationMissing(this.kernel);
      this.ready = true;
      return app;
    })();
    return this.built;
  }

  /**
   * Builds, then listens on `port` (default `PORT`, 3000); resolves once listening. A failure is
   * logged as one error line through the app's logger, then rejected, so a `main` need not print
   * it again.
   */
  async start(): Promise<RunningApp> {
    try {
      return await this.buildAndListen();
    } catch (error) {
      logStartFailure(this.kernel.pluginContext.logger, error);
      throw error;
    }
  }

  private async buildAndListen(): Promise<RunningApp> {
    if (this.stopping) throw HostErrors.STOPPED("start()");
    if (this.running) return this.running;
    const app = await this.build();
    // Stopped while plugins were starting: listening now would leave a server nothing closes.
    if (this.stopping) throw HostErrors.STOPPED("start()");
    const port = this.options.port ?? this.config.port;
    const host = this.options.host ?? this.config.host;
    const server = createServer(app);
    // What Node refuses before express sees it (huge headers, bad framing, Expect) gets the
    // app's error shape too.
    answerClientErrors(server, () => this.kernel.pluginContext.logger);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen({ port, host }, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (error) {
      // The plugins are up (database, seeds): stop them, and say what to do instead of Node's stack.
      await this.stop().catch(() => undefined);
      throw listenFailure(error, `${host ?? "every interface"} port ${port}`);
    }
    this.closing = gracefulClose(server, this.options.shutdownTimeoutMs ?? 10_000);
    // A socket server made while plugins started is attached now (its own port may be taken).
    await this.sockets.listen(server).catch(async (error: unknown) => {
      // As above: a main whose start() rejected has no app to stop, and the plugins hold the process open.
      await this.stop().catch(() => undefined);
      const socketPort = this.options.sockets?.port ?? this.config.websocketPort;
      throw listenFailure(error, `${host ?? "every interface"} port ${socketPort ?? port} (sockets)`);
    });
    // What was really bound, not what was asked for: `localhost` may become `::1`, no host `::`.
    const address = server.address() as AddressInfo;
    const listening = describeListenAddress(address);
    const sockets = this.sockets;
    this.running = {
      app,
      server,
      port: address.port,
      url: listening.url,
      get socketUrl() {
        const port = sockets.port;
        // A socket port of its own listens on the same interface as the HTTP server.
        return port === undefined ? undefined : httpOrigin(listening.clientHost, port);
      },
      stop: () => this.stop(),
    };
    if (this.options.handleSignals ?? true) this.installSignalHandlers();
    this.kernel.pluginContext.logger.info(listening.message);
    return this.running;
  }

  /**
   * Graceful shutdown: close the socket server (if any), stop accepting connections, let
   * in-flight requests finish (bounded by `shutdownTimeoutMs`), stop plugins in reverse order,
   * close the database. Idempotent. A stopped app stays stopped: `build()` and `start()` then
   * throw `HOST_STOPPED`.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.removeSignalHandlers();
      // Plugins still starting may yet resolve SOCKET_SERVER: the socket server closes after them.
      if (this.built) await this.built.catch(() => undefined);
      // Sockets before HTTP and plugins: their handlers must not outlive the plugins they use,
      // and closing them ends socket.io's long-polling requests, which would hold the HTTP drain.
      await this.sockets.close();
      if (this.closing) this.cutConnections = (await this.closing.close()).forced;
      await this.kernel.stop();
    })();
    return this.stopping;
  }

  private installSignalHandlers(): void {
    this.unregisterSignals = stopOnShutdownSignal(async (signal) => {
      const logger = this.kernel.pluginContext.logger;
      logger.info(`Received ${signal}: shutting down`);
      try {
        await this.stop();
      } catch (error) {
        logger.error("Shutdown failed", { error: String(error) });
        return 1;
      }
      // Requests cut off, or a plugin that did not stop cleanly (each logged as it happened): the
      // orchestrator, and whoever reads its exit codes, should know.
      let code = 0;
      if (this.cutConnections > 0) {
        const graceMs = this.options.shutdownTimeoutMs ?? 10_000;
        logger.error(`Shutdown exceeded its grace period (shutdownTimeoutMs ${graceMs} ms): ${this.cutConnections} connection(s) closed with a request unfinished`);
        code = 1;
      }
      if (this.kernel.stopFailures.length > 0) code = 1;
      return code;
    });
  }

  private removeSignalHandlers(): void {
    this.unregisterSignals?.();
    this.unregisterSignals = undefined;
  }
}

/**
 * The one line a failed start writes: the message and code of a coded error (its stack is the
 * framework's, not a clue), the stack of anything else — a plugin's own throw included, which a
 * coded error wraps as its cause. Production logs are JSON lines; Node's uncaught-exception dump is
 * a dozen lines of text.
 */
function logStartFailure(logger: SvcLogger, error: unknown): void {
  const code = codeOf(error);
  const uncoded = code === undefined ? error : (error as Error).cause;
  const stack = uncoded instanceof Error && codeOf(uncoded) === undefined ? uncoded.stack : undefined;
  const meta: Record<string, unknown> = {};
  if (code !== undefined) meta.code = code;
  if (stack !== undefined) meta.stack = stack;
  logger.error(`Start-up failed: ${error instanceof Error ? error.message : String(error)}`, meta);
}

/** A failed listen as a coded error saying what to do, instead of Node's stack. */
function listenFailure(error: unknown, where: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return HostErrors.PORT_IN_USE(where);
  return HostErrors.LISTEN_FAILED(where, code === "EACCES" ? "permission denied (ports below 1024 need privileges)" : (error as Error).message);
}

function codeOf(error: unknown): string | undefined {
  const code: unknown = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

function toPlugin(value: SvcPlugin | Router, nextName: () => string): SvcPlugin {
  if (isPathless(value)) throw HostErrors.UNMOUNTED_ROUTER(describe(value));
  if (isSvcPlugin(value)) return value;
  if (isExpressRouter(value)) return routerPlugin(nextName(), "/", value);
  throw HostErrors.NOT_REGISTRABLE(describeUnregistrable(value));
}

/** Wraps an express Router as a plugin that mounts it on the app's routes at `path`. */
export function routerPlugin(name: string, path: string, router: Router | RequestHandler): SvcPlugin {
  return {
    name,
    start(ctx) {
      ctx.resolve(HTTP_ROUTER).use(path, router);
    },
  };
}

export function isPathless(value: unknown): value is PathlessRouter {
  return (typeof value === "object" || typeof value === "function") && value !== null && MOUNT_AT in value;
}

export function isExpressRouter(value: unknown): value is Router {
  return typeof value === "function" && Array.isArray((value as { stack?: unknown }).stack);
}

/** What `register()` was given instead, and for a would-be plugin what it lacks. */
function describeUnregistrable(value: unknown): string {
  const name = (value as { name?: unknown } | null | undefined)?.name;
  if (typeof value === "object" && value !== null && typeof name === "string") {
    return `the object named "${name}": a plugin needs at least one of register(), start() or stop()`;
  }
  return value === null || value === undefined ? String(value) : `a ${typeof value}`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  const name = (value as { name?: unknown }).name;
  return typeof name === "string" && name ? name : typeof value;
}
