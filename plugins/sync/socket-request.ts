import { randomUUID } from "node:crypto";
import type { Request } from "express";
import type { RequestUser } from "../../contracts/request-user.js";
import type { SvcSocket } from "../../contracts/socket-server.js";

/**
 * What a model router's hooks receive as `req` when a mutation arrives over the socket: the
 * parts of an Express request a hook can meaningfully read — `user`, `requestId` (new per
 * event), the handshake's `headers` and `get()`, `ip`, `method` `"SOCKET"` and the event name as
 * `path`/`url`/`originalUrl`. It has no body, params, query or response.
 *
 * @example
 * preCreate: (body, req) => ({ ...body, createdVia: req.method === "SOCKET" ? "socket" : "http", by: req.user?.id })
 */
export function socketRequest(socket: SvcSocket, user: RequestUser, event: string): Request {
  const headers = socket.handshake.headers;
  const like = {
    user,
    requestId: randomUUID(),
    headers,
    ip: socket.handshake.address,
    method: "SOCKET",
    path: event,
    url: event,
    originalUrl: event,
    get(name: string): string | string[] | undefined {
      return headers[name.toLowerCase()];
    },
    header(name: string): string | string[] | undefined {
      return headers[name.toLowerCase()];
    },
  };
  return like as unknown as Request;
}
