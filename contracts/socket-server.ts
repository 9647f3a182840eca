import type { DefaultEventsMap, Server, ServerOptions, Socket } from "socket.io";
import type { ErrorObject } from "../kernel/api-error.js";
import { token } from "../kernel/container.js";
import type { RequestUser } from "./request-user.js";

/** What the host keeps on every socket it admitted (`socket.data`). */
export interface SocketData {
  /**
   * The user the handshake token belongs to (the same `RequestUser` HTTP routes see as
   * `req.user`); undefined on an anonymous socket, which presented no token.
   */
  user?: RequestUser;
  /**
   * The bearer credential the handshake presented (set with `user`). Servers that keep sockets
   * open for long re-check it through `AUTHENTICATOR` (expiry, a user disabled meanwhile). It
   * stays in server memory: never emit it.
   */
  credential?: string;
}

/**
 * The app's socket.io server, with `socket.data` typed as {@link SocketData}. It is socket.io's
 * own `Server` (namespaces, rooms, adapters and all), so plugins use socket.io's documentation;
 * what the host adds is one authentication path for every namespace, run before any plugin sees
 * a socket:
 *
 * - a handshake token (`io(url, {auth: {token}})`, or an `Authorization: Bearer` header) goes
 *   through `AUTHENTICATOR`; a valid one sets `socket.data.user`;
 * - a bad or expired token refuses the connection: the client's `connect_error` carries
 *   {@link SocketRefusal} as `error.data` (the app's error shape, with the authenticator's code);
 * - no token: the socket connects anonymously and each plugin decides what such sockets get.
 */
export type SocketServer = Server<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, SocketData>;

/** One connection of the {@link SocketServer}; `socket.data.user` is set when it authenticated. */
export type SvcSocket = Socket<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, SocketData>;

/**
 * What a refused connection's `connect_error` carries as `error.data`: the `errors` array of the
 * app's HTTP error responses, e.g. `{errors: [{status: "401", title: "Token expired", code:
 * "AUTH_TOKEN_EXPIRED"}]}` (never a stack).
 */
export interface SocketRefusal {
  errors: ErrorObject[];
}

/**
 * The app's socket server, bound by the host (`SvcApp`, `setupServer`). It is created the first
 * time a plugin resolves this token (an app whose plugins never do opens no socket server),
 * accepts connections once the app listens — on the app's HTTP server and port, or on a port of
 * its own (`WEBSOCKET_PORT`, or `SvcAppOptions.sockets.port`) — and is closed by `app.stop()`
 * before any plugin stops.
 *
 * @example
 * async start(ctx) {
 *   const io = ctx.resolve(SOCKET_SERVER);
 *   io.on("connection", (socket) => {
 *     if (!socket.data.user) return; // anonymous: this plugin has nothing for it
 *     void socket.join(`user:${socket.data.user.id}`);
 *   });
 * }
 */
export const SOCKET_SERVER = token<SocketServer>("sockets.SocketServer");

/**
 * The socket.io adapter the host gives the app's socket server, when something binds one: the
 * Redis plugin does (`CACHE_URL`), so a broadcast (`io.to(room).emit(...)`) reaches the sockets
 * of every instance of the app. Unbound, socket.io's in-memory adapter: broadcasts reach this
 * process's sockets. Resolved once, when the socket server is created.
 *
 * Emits that every instance makes on its own — each instance following the same change stream,
 * as sync deltas and feature-flag notifications do — must stay on that instance's sockets:
 * `io.local.to(room).emit(...)`, or each socket would get them once per instance.
 *
 * @example
 * import { createAdapter } from "@socket.io/redis-streams-adapter";
 * app.override(SOCKET_ADAPTER, { useFactory: () => createAdapter(redisClient) });
 */
export type SocketAdapter = NonNullable<ServerOptions["adapter"]>;

export const SOCKET_ADAPTER = token<SocketAdapter>("http.SocketAdapter");
