import type { BatchOutcome, SnapshotEntity, SnapshotPage, StreamMembership, SyncDelta, WireMutation } from "./wire-types.js";

/** What a transport reports to the client (the `sync:*` server events plus its own connectivity). */
export type TransportEvent =
  | { readonly type: "connected" }
  | { readonly type: "disconnected"; readonly reason: string }
  /** The server refused the connection; `unauthorized` when it was the credentials (401). */
  | { readonly type: "connect-error"; readonly unauthorized: boolean; readonly message: string }
  | { readonly type: "subscribed"; readonly collection: string; readonly streams: readonly string[] }
  | { readonly type: "sync-error"; readonly collection: string; readonly code?: string; readonly message: string }
  | { readonly type: "delta"; readonly delta: SyncDelta }
  | { readonly type: "auth-expired"; readonly reason: string }
  | { readonly type: "reconcile"; readonly reason: string };

/**
 * The realtime channel: a socket.io connection in production (`createSocketTransport`), or the
 * fake of `svc/sync/testing`. Mutations sent through it are answered per entry, as
 * `sync:mutateBatch` acknowledges them.
 *
 * @example
 * const transport: SyncTransport = createSocketTransport({ url: "https://api.example.com" });
 */
export interface SyncTransport {
  /** Opens (or re-opens) the connection with these credentials; reconnects by itself after network drops. */
  connect(auth: { readonly token: string }): void;
  /** Closes the connection and stops reconnecting until `connect` is called again. */
  disconnect(): void;
  isConnected(): boolean;
  /** Sends `sync:subscribe`; answers come back as `subscribed` and `sync-error` events. */
  subscribe(collections: readonly string[]): void;
  /** Sends `sync:mutateBatch` and resolves with one outcome per mutation; rejects with a `SyncRequestError`. */
  mutateBatch(mutations: readonly WireMutation[], batchId: string): Promise<readonly BatchOutcome[]>;
  /** Listens to every event; returns an unsubscribe function. */
  onEvent(listener: (event: TransportEvent) => void): () => void;
}

/**
 * The HTTP routes of docs/sync.md, called with a bearer token: snapshot paging, memberships,
 * point lookups, and mutations while the socket is down.
 *
 * @example
 * const page = await httpChannel.snapshot({ collection: "todos", stream, cursor: 0, limit: 500 }, token);
 */
export interface SyncHttpChannel {
  snapshot(query: { readonly collection: string; readonly stream: string; readonly cursor: number; readonly limit: number }, token: string): Promise<SnapshotPage>;
  streams(token: string): Promise<readonly StreamMembership[]>;
  entities(query: { readonly collection: string; readonly ids: readonly string[] }, token: string): Promise<readonly SnapshotEntity[]>;
  mutateBatch(mutations: readonly WireMutation[], token: string): Promise<readonly BatchOutcome[]>;
  /** The per-user key material of `GET /sync/key` (base64). */
  key(token: string): Promise<string>;
}

/**
 * Why a request got no usable answer: `auth` (401: the credentials no longer work), `network`
 * (no answer, a timeout, the connection dropped), `server` (5xx or an answer it could not read),
 * `refused` (another 4xx). Only `auth` and `refused` are not retried as they are.
 *
 * @example
 * throw new SyncRequestError("network", "socket disconnected");
 */
export class SyncRequestError extends Error {
  constructor(
    readonly kind: "auth" | "network" | "server" | "refused",
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "SyncRequestError";
  }
}
