import type { SocketServer, SvcSocket } from "../../contracts/socket-server.js";

/** Settings of `liveUpdates` (`true` takes them all as default). */
export interface LiveUpdatesOptions {
  /** Event name (default `featureFlagsChanged`). */
  eventName?: string;
}

/** Live updates attached to the app's socket server. */
export interface LiveUpdates {
  /** Tells every signed-in socket that these flags changed. */
  notify(keys: readonly string[]): void;
  /** Stops admitting sockets and empties the flag room. */
  detach(): void;
}

/** The room signed-in sockets join; anonymous sockets never do, so they never hear of changes. */
const ROOM = "svc:feature-flags";

/**
 * Tells signed-in socket.io clients which flag changed (`{key}`), so they refetch their flag
 * configuration. The app's socket server has already authenticated every socket (a bad token
 * never connects), so a socket with `socket.data.user` joins the flag room and is told so with
 * `featureFlagsSubscribed`; anonymous sockets stay connected for whatever else the app does
 * with them, but never join.
 *
 * @example
 * const live = attachLiveUpdates(ctx.resolve(SOCKET_SERVER), { eventName: "flagsChanged" });
 * live.notify(["new-checkout"]);
 * live.detach();
 */
export function attachLiveUpdates(io: SocketServer, options: LiveUpdatesOptions = {}): LiveUpdates {
  const eventName = options.eventName ?? "featureFlagsChanged";
  let attached = true;

  const admit = async (socket: SvcSocket): Promise<void> => {
    const user = socket.data.user;
    if (!user) return;
    await socket.join(ROOM);
    if (attached && socket.connected) socket.emit("featureFlagsSubscribed", { userId: user.id });
  };
  const onConnection = (socket: SvcSocket) => void admit(socket);
  io.on("connection", onConnection);
  // Sockets that connected before the plugin started are admitted too.
  for (const socket of io.of("/").sockets.values()) void admit(socket);

  return {
    notify(keys) {
      if (!attached) return;
      // Every instance follows the flags: each tells only its own sockets (with CACHE_URL, a broadcast would reach all).
      for (const key of keys) io.local.to(ROOM).emit(eventName, { key });
    },
    detach() {
      attached = false;
      io.off("connection", onConnection);
      io.local.in(ROOM).socketsLeave(ROOM);
    },
  };
}
