// A client that sends exactly the bytes it is given. fetch and supertest re-encode paths,
// validate header values and serialise bodies themselves, which would hide malformed
// percent-encoding, invalid UTF-8 and undecodable Content-Encoding from the server.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

/** What the server answered. */
export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** What to send: the path is written to the request line verbatim. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: Buffer;
}

// A liveness bound, not a speed check: a request the server never answers would otherwise hang
// the test until ava's own timeout, with no word on which request it was.
const NO_ANSWER_AFTER_MS = 30_000;

/**
 * Sends one request on a new connection (no keep-alive: a server that closes a connection after
 * refusing a body must not make the next request fail on a reused socket) and resolves with the
 * whole answer. Rejects when the server closes or resets the connection without answering.
 *
 * @example
 * const answer = await sendRaw("http://127.0.0.1:3000", { method: "GET", path: "/todos/%E0%A4%A", headers: {} });
 */
export function sendRaw(origin: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = httpRequest(
      {
        host: hostname.replace(/^\[|\]$/g, ""),
        port: Number(port),
        method: request.method,
        path: request.path,
        // Content-Length always: Node's client sends a GET's or DELETE's body without one, which
        // the server then reads as the start of a second, malformed request.
        headers: {
          connection: "close",
          ...(request.body === undefined ? {} : { "content-length": String(request.body.length) }),
          ...request.headers,
        } as Record<string, string | string[]>,
        agent: false,
        // The server may answer before reading a refused body (413); that answer is what counts.
        timeout: NO_ANSWER_AFTER_MS,
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on("error", reject);
        response.on("aborted", () => reject(new Error("the server aborted its answer")));
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer after ${NO_ANSWER_AFTER_MS} ms`)));
    // Once the answer has started, a write error (EPIPE, ECONNRESET) only means the server
    // stopped reading a body it had already refused.
    outgoing.on("error", (error) => {
      if (!answered) reject(error);
    });
    outgoing.end(request.body);
  });
}
