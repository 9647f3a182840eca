import { SyncRequestError, type SyncHttpChannel } from "./transport.js";
import type { BatchOutcome, SnapshotEntity, SnapshotPage, StreamMembership, SyncNack, WireMutation } from "./wire-types.js";

/** `GET /sync/entities` answers at most this many ids a request (the server's `MAX_LOOKUP_IDS`). */
const LOOKUP_IDS_PER_REQUEST = 100;

/** Options of `createHttpChannel`. */
export interface HttpChannelOptions {
  /** The app's URL (`https://api.example.com`). */
  readonly baseUrl: string;
  /** Where `syncApp` is mounted; default `/sync`. */
  readonly basePath?: string;
  /** The fetch to use; default the global one (browsers, Node 20+). */
  readonly fetch?: typeof fetch;
}

/**
 * The sync HTTP routes over `fetch`. 401 rejects with kind `auth`, no answer with `network`, 5xx
 * with `server`; `POST /sync/mutate/batch` answers are returned as they are (acks and nacks).
 *
 * @example
 * const httpChannel = createHttpChannel({ baseUrl: "https://api.example.com" });
 */
export function createHttpChannel(options: HttpChannelOptions): SyncHttpChannel {
  const base = `${options.baseUrl.replace(/\/$/, "")}${options.basePath ?? "/sync"}`;
  const call = async <T>(path: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    let response: Response;
    try {
      response = await (options.fetch ?? globalThis.fetch)(`${base}${path}`, {
        method: init.method ?? "GET",
        headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    } catch (error) {
      throw new SyncRequestError("network", error instanceof Error ? error.message : String(error));
    }
    const body = (await response.json().catch(() => undefined)) as (T & { nack?: SyncNack }) | undefined;
    if (response.ok && body !== undefined) return body;
    // A refused single mutation still answers with its nack: that is an outcome, not a failure.
    if (body?.nack) return body;
    if (response.status === 401) throw new SyncRequestError("auth", "The server refused the credentials", 401);
    if (response.status >= 500 || body === undefined) throw new SyncRequestError("server", `${path} answered ${response.status}`, response.status);
    throw new SyncRequestError("refused", `${path} answered ${response.status}`, response.status);
  };
  return {
    async snapshot({ collection, stream, cursor, limit }, token) {
      const query = new URLSearchParams({ collection, stream, cursor: String(cursor), limit: String(limit) });
      return call<SnapshotPage>(`/snapshot?${query}`, token);
    },
    async streams(token) {
      return (await call<{ streams: StreamMembership[] }>("/streams", token)).streams;
    },
    async entities({ collection, ids }, token) {
      // The server takes at most 100 ids a request: more are asked for in turn.
      const found: SnapshotEntity[] = [];
      for (let start = 0; start < ids.length; start += LOOKUP_IDS_PER_REQUEST) {
        const query = new URLSearchParams({ collection, ids: ids.slice(start, start + LOOKUP_IDS_PER_REQUEST).join(",") });
        found.push(...(await call<{ entities: SnapshotEntity[] }>(`/entities?${query}`, token)).entities);
      }
      return found;
    },
    async mutateBatch(mutations: readonly WireMutation[], token: string): Promise<readonly BatchOutcome[]> {
      return (await call<{ results: BatchOutcome[] }>("/mutate/batch", token, { method: "POST", body: { mutations } })).results;
    },
    async key(token) {
      return (await call<{ keyMaterial: string }>("/key", token)).keyMaterial;
    },
  };
}
