import type { Server, Socket } from "socket.io";
import type { Authenticator } from "../../contracts/authenticator.js";
import type { SvcLogger } from "../../kernel/logger.js";

export interface LiveUpdatesOptions {
  /** The app's socket.io server, or a function returning it (resolved when the plugin starts). */
  socketIoServer: Server | (() => Server);
  /** Event name (default `featureFlagsChanged`). */
  eventName?: string;
}

/** The room authenticated sockets join; anonymous sockets never do, so they never hear changes. */
const ROOM = "svc:feature-flags";

/** The bearer credential a socket presented: `auth: {token}` or an `Authorization` header. */
function handshakeToken(socket: Socket): string | undefined {
  const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof fromAuth === "string" && fromAuth !== "") return fromAuth.replace(/^Bearer\s+/i, "");
  const header = socket.handshake.headers.authorization;
  return typeof header === "string" && /^Bearer\s+\S/i.test(header) ? header.replace(/^Bearer\s+/i, "") : undefined;
}

/**
 * Tells authenticated socket.io clients which flag changed (`{key}`), so they refetch their flag
 * configuration. Sockets authenticate with the same tokens as HTTP (through `AUTHENTICATOR`);
 * the server itself is left alone — anonymous sockets stay connected for whatever else the app
 * uses them for, they just never join the flag room.
 *
 * @example
 * const live = attachLiveUpdates({ socketIoServer: io }, authenticator, logger);
 * live.notify(["new-checkout"]);
 * live.detach();
 */
export function attachLiveUpdates(options: LiveUpdatesOptions, authenticator: Authenticator, logger: SvcLogger) {
  const io = typeof options.socketIoServer === "function" ? options.socketIoServer() : options.socketIoServer;
  const eventName = options.eventName ?? "featureFlagsChanged";
  let attached = true;

  const admit = async (socket: Socket): Promise<void> => {
    const token = handshakeToken(socket);
    if (!token) return;
    try {
      const user = await authenticator.authenticateToken(token);
      if (attached && socket.connected) {
        await socket.join(ROOM);
        socket.emit("featureFlagsSubscribed", { userId: user.id });
      }
    } catch {
      // A bad token only means no flag updates for this socket; the auth plugin already logs.
      logger.debug("Feature flags: socket not admitted to live updates (bad token)", { socketId: socket.id });
    }
  };
  const onConnection = (socket: Socket) => void admit(socket);
  io.on("connection", onConnection);
  for (const socket of io.of("/").sockets.values()) void admit(socket);

  return {
    notify(keys: readonly string[]): void {
      if (!attached) return;
      for (const key of keys) io.to(ROOM).emit(eventName, { key });
    },
    detach(): void {
      attached = false;
      io.off("connection", onConnection);
      io.in(ROOM).socketsLeave(ROOM);
    },
  };
}
