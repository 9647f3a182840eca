// Clients that send exactly what a test gives them. supertest and fetch serialise bodies and
// check headers themselves, which would hide an undecodable Content-Encoding or broken framing
// from the server.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";

/** An answer read off the wire. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON (throws when it is not). */
  json<T = { errors: Array<{ status: string; code: string; title: string }>; requestId?: string }>(): T;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/**
 * One request on a connection of its own, body bytes as given (no serialisation, no encoding).
 *
 * @example
 * const answer = await sendRaw(url, { method: "POST", path: "/auth/login", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: Buffer.from("junk") });
 * answer.json().errors[0].code; // "HTTP_UNDECODABLE_BODY"
 */
export function sendRaw(url: string, raw: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: hostname.replace(/^\[|\]$/g, ""), port: Number(port), method: raw.method, path: raw.path, headers: { connection: "close", ...raw.headers }, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(raw.body);
  });
}

/**
 * Writes `bytes` on a new TCP connection and resolves with everything the server sent back
 * before it closed the connection (or until `idleMs` of silence after the first bytes).
 *
 * @example
 * const text = await sendBytes(url, "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
 * parseRawAnswer(text).status; // 400
 */
export function sendBytes(url: string, bytes: Buffer | string, idleMs = 1000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port) });
    const chunks: Buffer[] = [];
    let idle: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(idle);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // A server that keeps the connection open (after a 100 Continue...) has said its piece
      // once it goes quiet.
      clearTimeout(idle);
      idle = setTimeout(finish, idleMs);
    });
    socket.on("end", finish);
    socket.on("close", finish);
    // A reset after the answer was written is how some refusals end; what arrived counts.
    socket.on("error", (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.write(bytes);
  });
}

/** One HTTP/1.1 answer as text: status line, headers (lower-cased names) and body. */
export interface ParsedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Splits the first answer of a raw HTTP/1.1 exchange (an interim `100 Continue` is skipped).
 *
 * @example
 * const { status, headers, body } = parseRawAnswer(await sendBytes(url, request));
 */
export function parseRawAnswer(text: string): ParsedAnswer {
  let rest = text;
  while (/^HTTP\/1\.1 1\d\d /.test(rest)) rest = rest.slice(rest.indexOf("\r\n\r\n") + 4);
  const end = rest.indexOf("\r\n\r\n");
  const head = end === -1 ? rest : rest.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  return { status, headers, body: end === -1 ? "" : rest.slice(end + 4) };
}
