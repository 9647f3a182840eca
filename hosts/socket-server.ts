import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { CorsOptions } from "cors";
import { Server as Engine } from "engine.io";
import { Server, type ExtendedError } from "socket.io";
import { AUTHENTICATOR } from "../contracts/authenticator.js";
import { ERROR_TRACKER } from "../contracts/error-tracker.js";
import { SOCKET_ADAPTER, type SocketRefusal, type SocketServer, type SvcSocket } from "../contracts/socket-server.js";
import type { SvcContainer } from "../kernel/container.js";
import { HttpErrors } from "../kernel/http-errors.js";
import type { SvcLogger } from "../kernel/logger.js";
import { answerClientErrors } from "./client-error-answers.js";
import { gracefulClose, type GracefulClose } from "./graceful-close.js";
import { toAPIError } from "./error-response.js";
import { answerEngineRefusals, answerUpgradeRefusals } from "./socket-refusals.js";

const DEFAULT_MAX_PAYLOAD_BYTES = 2 * 1024 * 1024;

/** Where and how the app's socket server (`SOCKET_SERVER`) accepts connections. */
export interface SocketServerOptions {
  /**
   * `"shared"`: the app's own HTTP server and port (the default, unless `WEBSOCKET_PORT` is set).
   * A number: an HTTP server of its own on that port (0 picks a free one), for deployments that
   * route websocket traffic separately.
   */
  port?: number | "shared";
  /** The socket.io endpoint (default `/socket.io`, which is also socket.io clients' default). */
  path?: string;
  /**
   * The largest message a client may send, in bytes (default 2 MiB: twice the JSON body limit,
   * so a plugin can answer a message just over its own limit instead of the connection closing).
   * A bigger message closes that client's connection (socket.io's own behaviour).
   */
  maxPayloadBytes?: number;
}

export interface SocketServerHostOptions {
  /** Where `AUTHENTICATOR` and `ERROR_TRACKER` are looked up, at each handshake. */
  container: SvcContainer;
  logger: () => SvcLogger;
  port: number | "shared";
  path?: string;
  /** See {@link SocketServerOptions.maxPayloadBytes}. */
  maxPayloadBytes?: number;
  /** Interface of the own-port server (default: all interfaces). */
  host?: string;
  /** The HTTP stack's CORS settings, applied to socket.io's long-polling requests too. */
  cors?: CorsOptions | false;
  /** How long the own-port server waits for its connections on close, in ms. */
  shutdownTimeoutMs?: number;
}

/**
 * The host's side of the `SOCKET_SERVER` port: creates the socket.io server on first use, with
 * the one handshake authentication every namespace gets; attaches it when the app listens; closes
 * it on stop. socket.io is bound to an engine of its own rather than attached to the HTTP server,
 * so closing it never closes the app's HTTP server, which the host drains itself.
 *
 * @example
 * const sockets = new SocketServerHost({ container, logger: () => logger, port: "shared" });
 * container.bind(SOCKET_SERVER, { useFactory: () => sockets.open() });
 * await sockets.listen(httpServer); // once the app listens
 * await sockets.close();            // on stop, before plugins stop
 */
export class SocketServerHost {
  private readonly options: SocketServerHostOptions;
  private io?: SocketServer;
  private engine?: Engine;
  private appServer?: HttpServer;
  private ownServer?: HttpServer;
  private ownClosing?: GracefulClose;
  private attached?: Promise<void>;
  private closing?: Promise<void>;

  constructor(options: SocketServerHostOptions) {
    this.options = options;
  }

  /** The socket server, created on the first call (and attached at once if the app already listens). */
  open(): SocketServer {
    if (this.io) return this.io;
    const path = this.options.path ?? "/socket.io";
    const cors = this.options.cors === false ? undefined : (this.options.cors ?? {});
    // Bound by the Redis plugin (CACHE_URL): broadcasts then reach every instance's sockets.
    const adapter = this.options.container.tryResolve(SOCKET_ADAPTER);
    const io: SocketServer = new Server({ path, serveClient: false, ...(adapter ? { adapter } : {}) });
    this.engine = new Engine({ cors, maxHttpBufferSize: this.options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES });
    answerEngineRefusals(this.engine, this.options.logger);
    io.bind(this.engine);
    const authenticate = (socket: SvcSocket, next: (error?: ExtendedError) => void) => void this.authenticate(socket, next);
    io.use(authenticate);
    // Namespaces made later (`io.of("/sync")`, dynamic ones) authenticate the same way.
    io.on("new_namespace", (namespace) => namespace.use(authenticate));
    this.io = io;
    if (this.appServer && !this.closing) this.attached = this.attach(this.appServer);
    return io;
  }

  /** Called once the app's HTTP server listens: sockets are accepted from then on. */
  async listen(appServer: HttpServer): Promise<void> {
    this.appServer = appServer;
    if (this.io && !this.attached) this.attached = this.attach(appServer);
    await this.attached;
  }

  /** The port sockets connect to, once accepting; undefined when there is no socket server. */
  get port(): number | undefined {
    const server = this.options.port === "shared" ? this.appServer : this.ownServer;
    if (!this.io || !server?.listening) return undefined;
    return (server.address() as AddressInfo).port;
  }

  /**
   * Disconnects every socket (their `disconnect` handlers run now, before plugins stop), closes
   * the engine and the adapters, and the own-port server if there is one. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.io) return;
      await this.attached?.catch(() => undefined);
      await this.io.close();
      await this.ownClosing?.close();
    })();
    return this.closing;
  }

  private async attach(appServer: HttpServer): Promise<void> {
    const path = this.options.path ?? "/socket.io";
    if (this.options.port === "shared") {
      answerUpgradeRefusals(appServer, this.engine!, path, this.options.logger);
      this.engine!.attach(appServer, { path, destroyUpgrade: false });
      return;
    }
    // Anything but socket.io's path on the socket port is a 404 in the app's error shape.
    const own = createServer((req, res) => {
      const requestId = randomUUID();
      const notFound = HttpErrors.NOT_FOUND({ detail: `${req.method} ${req.url?.split("?")[0]} is not a socket.io path` });
      const body = JSON.stringify({ errors: [notFound.toErrorObject()], requestId });
      res.writeHead(notFound.status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(body), "X-Request-ID": requestId });
      res.end(body);
    });
    answerClientErrors(own, this.options.logger);
    answerUpgradeRefusals(own, this.engine!, path, this.options.logger);
    this.engine!.attach(own, { path, destroyUpgrade: false });
    this.ownServer = own;
    await new Promise<void>((resolve, reject) => {
      own.once("error", reject);
      own.listen({ port: this.options.port, host: this.options.host }, () => {
        own.off("error", reject);
        resolve();
      });
    });
    // Tracked from the first connection, so close() can wait for (or cut) every one of them.
    this.ownClosing = gracefulClose(own, this.options.shutdownTimeoutMs ?? 10_000);
  }

  /**
   * The one handshake authentication: a token goes through `AUTHENTICATOR` (a bad one refuses
   * the connection with the app's error shape), no token means an anonymous socket.
   */
  private async authenticate(socket: SvcSocket, next: (error?: ExtendedError) => void): Promise<void> {
    const token = handshakeToken(socket.handshake);
    if (token === undefined) return next();
    try {
      const authenticator = this.options.container.tryResolve(AUTHENTICATOR);
      if (!authenticator) throw HttpErrors.UNAUTHENTICATED({ detail: "This app has no authenticator for socket tokens" });
      socket.data.user = await authenticator.authenticateToken(token);
      socket.data.credential = token;
      next();
    } catch (error) {
      next(this.refusal(error, socket));
    }
  }

  private refusal(error: unknown, socket: SvcSocket): ExtendedError & { data: SocketRefusal } {
    const apiError = toAPIError(error);
    if (apiError.status >= 500) {
      // As for HTTP: the client learns nothing of the cause; the log and the tracker do.
      const cause = apiError.cause ?? apiError;
      this.options.logger().error(`Socket handshake failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
        socketId: socket.id,
        stack: cause instanceof Error ? cause.stack : undefined,
      });
      if (!apiError.disableExternalErrorTracking) this.options.container.tryResolve(ERROR_TRACKER)?.captureException(cause);
    }
    // socket.io sends only `message` and `data` to the client: the stack stays here.
    return Object.assign(new Error(apiError.title), { data: { errors: [apiError.toErrorObject()] } });
  }
}

/**
 * The bearer credential of a handshake: `auth: {token}` (with or without a `Bearer ` prefix) or
 * an `Authorization: Bearer` header. A header of another scheme is not ours to judge: anonymous.
 */
function handshakeToken(handshake: SvcSocket["handshake"]): string | undefined {
  const fromAuth = (handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof fromAuth === "string" && fromAuth.trim() !== "") return fromAuth.trim().replace(/^Bearer\s+/i, "");
  const header = handshake.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(header.trim());
  return match ? (match[1] ?? "").trim() : undefined;
}
