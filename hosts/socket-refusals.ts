import { randomUUID } from "node:crypto";
import type { EventEmitter } from "node:events";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { Server as Engine } from "engine.io";
import type { APIError, ErrorResponseBody } from "../kernel/api-error.js";
import { HttpErrors } from "../kernel/http-errors.js";
import type { SvcLogger } from "../kernel/logger.js";
import { rawErrorAnswer } from "./client-error-answers.js";

/** What engine.io reports when it refuses a request (its `connection_error` event). */
interface EngineRefusal {
  req: IncomingMessage & { res?: ServerResponse };
  code: number;
  message: string;
}

const ignore = () => undefined;

/**
 * Answers the refusals of socket.io's transport layer (engine.io) in the app's error shape:
 * a handshake with an unknown transport, session id or protocol version, a bad handshake method
 * (400 `HTTP_BAD_REQUEST`, 403 `HTTP_FORBIDDEN`; `meta.engineCode` keeps engine.io's own code),
 * over long-polling and websocket alike, and a websocket handshake the `ws` library refuses.
 * engine.io would answer `{code, message}` JSON or a text page. Its `connection_error` event
 * fires just before it writes: an answer written then is kept (engine.io skips a response whose
 * headers are sent, and a socket already ended).
 *
 * @example
 * const engine = new Engine({ cors });
 * answerEngineRefusals(engine, () => logger);
 */
export function answerEngineRefusals(engine: Engine, logger: () => SvcLogger): void {
  engine.on("connection_error", (refusal: EngineRefusal) => {
    const factory = refusal.code === Engine.errors.FORBIDDEN ? HttpErrors.FORBIDDEN : HttpErrors.BAD_REQUEST;
    // engine.io's messages are its own constants ("Session ID unknown"), never the client's input.
    const answer = factory({ detail: `socket.io refused the request: ${refusal.message}`, meta: { engineCode: refusal.code } });
    const requestId = randomUUID();
    logger().debug(`socket.io refused a request: ${refusal.message}`, { requestId, status: answer.status, engineCode: refusal.code });
    const res = refusal.req.res;
    if (res) {
      if (!res.headersSent) writeErrorAnswer(res, answer, requestId);
      return;
    }
    endWithAnswer(refusal.req.socket, answer, requestId);
  });
}

/**
 * Answers upgrade requests on `server` in the error shape where nothing else will: a websocket
 * handshake the `ws` library refuses (bad key or version) on socket.io's path, and an upgrade to
 * any other path — which reaches no route once socket.io listens for upgrades, and which
 * engine.io would close after a second without a word. An upgrade on another path is left alone
 * when something else on the server listens for upgrades. Register it before `engine.attach`,
 * with `destroyUpgrade: false` there.
 *
 * @example
 * answerUpgradeRefusals(server, engine, "/socket.io", () => logger);
 * engine.attach(server, { path: "/socket.io", destroyUpgrade: false });
 */
export function answerUpgradeRefusals(server: HttpServer, engine: Engine, path: string, logger: () => SvcLogger): void {
  // engine.io's own reading of its path: the path with one trailing slash, as a URL prefix.
  const prefix = `${path.replace(/\/$/, "")}/`;
  const ours = (req: IncomingMessage, socket: Duplex) => {
    if ((req.url ?? "").startsWith(prefix)) {
      watchWebSocketHandshakes(engine, logger);
      return;
    }
    // This listener and engine.io's: anything more is another handler's, for its own paths.
    if (server.listenerCount("upgrade") > 2) return;
    const answer = HttpErrors.BAD_REQUEST({ detail: "This path does not accept protocol upgrades" });
    const requestId = randomUUID();
    logger().info(`${req.method} ${(req.url ?? "").split("?")[0]} upgrade refused: ${answer.status} ${answer.code}`, { requestId, status: answer.status, code: answer.code });
    endWithAnswer(socket, answer, requestId);
  };
  server.on("upgrade", ours);
}

/**
 * engine.io hands websocket handshakes to a `ws` server it owns (and re-creates when its HTTP
 * server starts listening), which answers a malformed one with a text page unless someone
 * listens for `wsClientError`. So the listener is added to whichever `ws` server is current.
 */
function watchWebSocketHandshakes(engine: Engine, logger: () => SvcLogger): void {
  const ws = (engine as unknown as { ws?: EventEmitter }).ws;
  if (!ws || typeof ws.on !== "function" || ws.listenerCount("wsClientError") > 0) return;
  ws.on("wsClientError", (_error: Error, socket: Duplex) => {
    const answer = HttpErrors.BAD_REQUEST({ detail: "The websocket handshake is malformed" });
    const requestId = randomUUID();
    logger().debug("socket.io refused a websocket handshake", { requestId, status: answer.status });
    endWithAnswer(socket, answer, requestId);
  });
}

function writeErrorAnswer(res: ServerResponse, answer: APIError, requestId: string): void {
  const body = JSON.stringify({ errors: [answer.toErrorObject()], requestId } satisfies ErrorResponseBody);
  res.writeHead(answer.status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(body), "X-Request-ID": requestId });
  res.end(body);
}

function endWithAnswer(socket: Duplex, answer: APIError, requestId: string): void {
  socket.on("error", ignore);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorAnswer(answer, requestId), () => socket.destroy());
}
