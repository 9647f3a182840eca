import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** How a graceful close ended. */
export interface GracefulCloseResult {
  /** Connections still open when the grace period ran out, destroyed with whatever they were doing. */
  readonly forced: number;
}

/** Closes a server gracefully; see {@link gracefulClose}. */
export interface GracefulClose {
  /** Idempotent: every call shares one close. */
  close(): Promise<GracefulCloseResult>;
}

/**
 * Tracks a server's connections from now on so it can close gracefully: `close()` stops listening
 * at once (a new connection is refused, not accepted and then reset, which a client cannot tell
 * from a request lost half-way), ends idle keep-alive connections, lets requests in flight finish
 * with `Connection: close`, and destroys what is still open after `graceMs`.
 *
 * @example
 * const closing = gracefulClose(server, 10_000); // right after listen
 * // on stop
 * const { forced } = await closing.close();
 */
export function gracefulClose(server: Server, graceMs: number): GracefulClose {
  // Upgraded sockets (websockets) leave Node's own connection list: tracked here, they are
  // destroyed at the deadline too.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  let closing: Promise<GracefulCloseResult> | undefined;

  return {
    close() {
      closing ??= new Promise<GracefulCloseResult>((resolve, reject) => {
        // Closed already: close() would wait for a "close" event that was emitted before.
        if (!server.listening) return resolve({ forced: 0 });
        const endAfter = (response: ServerResponse): void => {
          if (!response.headersSent) response.setHeader("connection", "close");
          // A response already under way announced keep-alive: its connection idles once it finishes.
          else response.once("finish", () => setImmediate(() => server.closeIdleConnections()));
        };
        // A request already read from a kept-alive connection may still arrive.
        server.on("request", (_request, response: ServerResponse) => endAfter(response));
        for (const socket of sockets) {
          const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
          if (response) endAfter(response);
        }
        let forced = 0;
        const deadline = setTimeout(() => {
          forced = sockets.size;
          for (const socket of sockets) socket.destroy();
        }, graceMs);
        // close() also ends the idle keep-alive connections (Node ≥ 19) and calls back once the
        // last connection is gone.
        server.close((error) => {
          clearTimeout(deadline);
          if (error && (error as NodeJS.ErrnoException).code !== "ERR_SERVER_NOT_RUNNING") reject(error);
          else resolve({ forced });
        });
      });
      return closing;
    },
  };
}
