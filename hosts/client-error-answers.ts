import { randomUUID } from "node:crypto";
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { APIError, ErrorResponseBody } from "../kernel/api-error.js";
import type { HttpErrorFactory } from "../kernel/errors.js";
import { HttpErrors } from "../kernel/http-errors.js";
import type { SvcLogger } from "../kernel/logger.js";

/** Node's parser errors that have an answer of their own; every other one is malformed HTTP. */
const PARSER_ERRORS: Readonly<Record<string, HttpErrorFactory>> = {
  HPE_HEADER_OVERFLOW: HttpErrors.HEADERS_TOO_LARGE,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: HttpErrors.PAYLOAD_TOO_LARGE,
  ERR_HTTP_REQUEST_TIMEOUT: HttpErrors.REQUEST_TIMEOUT,
};

/**
 * A whole HTTP/1.1 answer in the app's error shape, as bytes for a socket no `ServerResponse`
 * owns (a request Node's parser refused, a refused websocket upgrade). It closes the connection:
 * after a framing error nothing more on it can be trusted.
 *
 * @example
 * socket.end(rawErrorAnswer(HttpErrors.MALFORMED_REQUEST(), randomUUID()));
 */
export function rawErrorAnswer(error: APIError, requestId: string): string {
  const body = JSON.stringify({ errors: [error.toErrorObject()], requestId } satisfies ErrorResponseBody);
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-ID: ${requestId}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/**
 * Answers what Node refuses before the app sees a request in the app's error shape
 * `{errors: [{status, title, code, detail}], requestId}` instead of Node's bodiless default:
 * headers over `maxHeaderSize` (431 `HTTP_HEADERS_TOO_LARGE`), a request not received in time
 * (408 `HTTP_REQUEST_TIMEOUT`), any other parse error — bad framing, request line or header
 * (400 `HTTP_MALFORMED_REQUEST`) — and an `Expect` other than `100-continue` (417
 * `HTTP_EXPECTATION_FAILED`). Like Node, it answers only while nothing was written on the
 * connection (a reset, or a socket already answering, is just closed), and closes the connection.
 * Each refusal is logged at info with its request id (when a logger is given): the client's
 * mistake, not the server's. `SvcApp.start()` installs it; call it for a server of your own.
 *
 * @example
 * const server = createServer(await app.build());
 * answerClientErrors(server, () => app.kernel.pluginContext.logger);
 */
export function answerClientErrors(server: Server, logger: () => SvcLogger | undefined = () => undefined): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Node has removed its own error listener by now: a write that fails must not crash the app.
    socket.on("error", () => undefined);
    const written = (socket as Duplex & { bytesWritten?: number }).bytesWritten ?? 0;
    if (error.code === "ECONNRESET" || !socket.writable || written > 0) {
      socket.destroy();
      return;
    }
    const code = error.code ?? "";
    const answer = (PARSER_ERRORS[code] ?? HttpErrors.MALFORMED_REQUEST)({ detail: "The server refused the request before reading it" });
    const requestId = randomUUID();
    logger()?.info(`Refused before routing: ${answer.status} ${answer.code}`, { requestId, status: answer.status, code: answer.code, parserError: code });
    socket.end(rawErrorAnswer(answer, requestId), () => socket.destroy());
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    const answer = HttpErrors.EXPECTATION_FAILED({ detail: "The only expectation this server meets is 100-continue" });
    logger()?.info(`${req.method} ${req.url?.split("?")[0]} ${answer.status} ${answer.code}`, { requestId, status: answer.status, code: answer.code });
    const body = JSON.stringify({ errors: [answer.toErrorObject()], requestId } satisfies ErrorResponseBody);
    // The body the client held back is never read: the connection ends with this answer.
    res.writeHead(answer.status, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "X-Request-ID": requestId,
      Connection: "close",
    });
    res.end(body);
  });
}
