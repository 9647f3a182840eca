import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { unref } from "./engine-context.js";
import { SyncRequestError, type SyncTransport, type TransportEvent } from "./transport.js";
import type { BatchOutcome, SyncDelta, WireMutation } from "./wire-types.js";

/** Options of `createSocketTransport`. */
export interface SocketTransportOptions {
  /** Where the app's socket.io server listens (the app's URL, or its `WEBSOCKET_PORT`). */
  readonly url: string;
  /** How long a `sync:mutateBatch` may wait for its acknowledgement; default 30000 ms. */
  readonly ackTimeoutMs?: number;
  /** Passed to socket.io-client's `io()` (e.g. `path`); `auth` and `autoConnect` are the transport's own. */
  readonly socketOptions?: Partial<ManagerOptions & SocketOptions>;
}

interface Refusal {
  readonly errors?: ReadonlyArray<{ readonly status?: string; readonly code?: string; readonly message?: string }>;
}

/**
 * The realtime transport over socket.io-client (an optional peer dependency of svc: install it in
 * the app that syncs). Websocket only, so no sticky sessions are needed; it reconnects by itself
 * after a network drop, each attempt with the token of the last `connect()`.
 *
 * @example
 * const transport = createSocketTransport({ url: "https://api.example.com" });
 * const db = createSyncDb({ name: "app", collections: ["todos"], baseUrl: "https://api.example.com", transport, authProvider });
 */
export function createSocketTransport(options: SocketTransportOptions): SyncTransport {
  let token = "";
  let wanted = false;
  const listeners = new Set<(event: TransportEvent) => void>();
  const inFlight = new Set<(error: SyncRequestError) => void>();
  const emit = (event: TransportEvent) => {
    for (const listener of [...listeners]) listener(event);
  };
  const socket: Socket = io(options.url, {
    transports: ["websocket"],
    reconnectionDelay: 250,
    reconnectionDelayMax: 10_000,
    ...options.socketOptions,
    autoConnect: false,
    // Read on every (re)connection attempt, so a refreshed token is used without a new socket.
    auth: (callback) => callback({ token }),
  });
  socket.on("connect", () => emit({ type: "connected" }));
  socket.on("disconnect", (reason) => {
    // Acknowledgements of a closed connection never come: fail them now so the outbox retries.
    for (const reject of [...inFlight]) reject(new SyncRequestError("network", `socket disconnected (${reason})`));
    emit({ type: "disconnected", reason });
    // socket.io does not reconnect after the server closed the connection; the client decides.
  });
  socket.on("connect_error", (error: Error & { data?: Refusal }) => {
    const unauthorized = error.data?.errors?.some((entry) => entry.status === "401") ?? false;
    emit({ type: "connect-error", unauthorized, message: error.message });
    // A refusal by the server's middleware is not retried by socket.io; a network failure is.
    if (!unauthorized && wanted && !socket.active) unref(setTimeout(() => wanted && !socket.connected && socket.connect(), 1_000));
  });
  socket.on("sync:subscribed", (payload: { collection: string; streams: string[] }) => emit({ type: "subscribed", collection: payload.collection, streams: payload.streams }));
  socket.on("sync:error", (payload: { collection: string; code?: string; message: string }) => emit({ type: "sync-error", collection: payload.collection, code: payload.code, message: payload.message }));
  socket.on("sync:delta", (delta: SyncDelta) => emit({ type: "delta", delta }));
  socket.on("sync:auth-expired", (payload: { reason: string }) => emit({ type: "auth-expired", reason: payload.reason }));
  socket.on("sync:reconcile", (payload: { reason: string }) => emit({ type: "reconcile", reason: payload.reason }));
  return {
    connect(auth) {
      token = auth.token;
      wanted = true;
      if (!socket.connected) socket.connect();
    },
    disconnect() {
      wanted = false;
      socket.disconnect();
    },
    isConnected: () => socket.connected,
    subscribe(collections) {
      socket.emit("sync:subscribe", { collections });
    },
    mutateBatch(mutations: readonly WireMutation[], batchId: string): Promise<readonly BatchOutcome[]> {
      if (!socket.connected) return Promise.reject(new SyncRequestError("network", "socket not connected"));
      return new Promise((resolve, reject) => {
        const fail = (error: SyncRequestError) => {
          inFlight.delete(fail);
          reject(error);
        };
        inFlight.add(fail);
        socket.timeout(options.ackTimeoutMs ?? 30_000).emit("sync:mutateBatch", { mutations, batchId }, (error: Error | null, answer: { results?: BatchOutcome[] } & Refusal) => {
          if (!inFlight.delete(fail)) return;
          if (error) return reject(new SyncRequestError("network", "no acknowledgement in time"));
          if (answer.results) return resolve(answer.results);
          const unauthorized = answer.errors?.some((entry) => entry.status === "401") ?? false;
          reject(new SyncRequestError(unauthorized ? "auth" : "refused", answer.errors?.[0]?.code ?? "batch refused"));
        });
      });
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
