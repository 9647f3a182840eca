import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { McpHandlerRequestOptions } from "@modelcontextprotocol/server";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";

/** A fetch-style MCP handler (`createMcpHandler(...).fetch`). */
export type McpFetch = (request: globalThis.Request, options?: McpHandlerRequestOptions) => Promise<globalThis.Response>;

/**
 * Serves one MCP exchange from an express route whose body the app has already parsed. The SDK's
 * `toNodeHandler` serialises a parsed body back into the web `Request` only for the handler to
 * use `parsedBody` instead, and copies every response through a web stream; on the app's route
 * the request goes without a body and a JSON answer is read whole, while an SSE answer still
 * streams (with back-pressure, cancelled when the client goes away). The request's `signal`
 * aborts when the client disconnects, as with the SDK's adapter.
 *
 * @example
 * const response = await mcpExchange(handler.fetch, req, res, { authInfo });
 * await sendMcpResponse(response, res);
 */
export function mcpExchange(fetch: McpFetch, req: ExpressRequest, res: ExpressResponse, options: McpHandlerRequestOptions): Promise<globalThis.Response> {
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  // The body went to express's parser: what the handler reads is `parsedBody`.
  headers.delete("content-length");
  headers.delete("content-encoding");
  headers.delete("transfer-encoding");
  const request = new Request(`http://${req.headers.host ?? "localhost"}${req.originalUrl}`, { method: req.method, headers, signal: abort.signal });
  return fetch(request, { ...options, parsedBody: req.body });
}

/**
 * Writes the handler's response to express: a JSON (or empty) body in one piece, an event
 * stream as it comes.
 */
export async function sendMcpResponse(response: globalThis.Response, res: ExpressResponse): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (response.body === null) {
    res.end();
    return;
  }
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  res.flushHeaders();
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>), res).catch(() => {
    // The client went away mid-stream: the handler has seen the abort; nothing is left to answer.
  });
}
