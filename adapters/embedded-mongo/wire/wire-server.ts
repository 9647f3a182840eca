import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import type { Engine } from "../engine.js";
import { ClientConnection } from "./client-connection.js";

/**
 * The TCP front of the engine: accepts connections and gives each its own `ClientConnection`.
 * `close()` stops listening and destroys every open socket, so stopping never waits on idle
 * driver pools.
 *
 * @example
 * const server = new WireServer(engine);
 * const {port} = await server.listen(0, "127.0.0.1");
 */
export class WireServer {
  private readonly server: Server;
  private readonly connections = new Set<ClientConnection>();
  private nextConnectionId = 1;
  private requestId = 1;

  constructor(private readonly engine: Engine) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Starts listening; resolves with the bound address (port 0 → an ephemeral port). */
  listen(port: number, host: string): Promise<{ port: number; host: string }> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.server.once("error", onError);
      this.server.listen({ port, host, exclusive: true }, () => {
        this.server.off("error", onError);
        // Only now: a failed listen (port in use, no such address) is the rejection above, and
        // logging it as well would print its stack before the caller's own message.
        this.server.on("error", (error) => this.engine.logger.error("embedded-mongo: server error", error));
        const address = this.server.address();
        if (address === null || typeof address === "string") {
          reject(new Error("embedded-mongo: could not read the listening address"));
          return;
        }
        resolve({ port: address.port, host: address.address });
      });
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of [...this.connections]) connection.destroy();
    await closed;
  }

  private accept(socket: Socket): void {
    const connection = new ClientConnection(
      socket,
      this.engine,
      this.nextConnectionId++,
      () => {
        this.requestId = (this.requestId + 1) & 0x7fffffff;
        return this.requestId;
      },
      (closed) => {
        this.connections.delete(closed);
        this.engine.connectionCount = this.connections.size;
      },
    );
    this.connections.add(connection);
    this.engine.connectionCount = this.connections.size;
  }
}
