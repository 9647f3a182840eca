import { io as connect, type Socket } from "socket.io-client";

/** A connected socket.io client that keeps every event it receives, for tests to wait on. */
export interface RecordingSocket {
  readonly socket: Socket;
  /** Every event received so far, in order, as `[name, payload]`. */
  readonly events: Array<[string, unknown]>;
  /**
   * The first not-yet-taken event called `name` (matching `where`), waiting for it if needed;
   * each event is taken once, so successive calls walk through repeated events in order.
   */
  next<T = unknown>(name: string, where?: (payload: T) => boolean): Promise<T>;
  /** Resolves once the server has closed the connection (with its reason). */
  readonly disconnected: Promise<string>;
  emit(event: string, payload: unknown): void;
  /** Emits with an acknowledgement callback and resolves with what the server acknowledged. */
  request<T = unknown>(event: string, payload: unknown): Promise<T>;
}

/**
 * Connects a recording client (websocket transport, no reconnection), with a handshake token when
 * given; rejects with the `connect_error` when the server refuses it. `teardown` closes it.
 *
 * @example
 * const client = await recordingSocket(socketUrl, { token, teardown: (fn) => t.teardown(fn) });
 * client.emit("sync:subscribe", { collections: ["todos"] });
 * await client.next("sync:subscribed");
 */
export async function recordingSocket(url: string, options: { token?: string; teardown: (fn: () => void) => void; waitMs?: number }): Promise<RecordingSocket> {
  const socket = connect(url, { transports: ["websocket"], auth: options.token ? { token: options.token } : {}, reconnection: false, forceNew: true });
  options.teardown(() => void socket.disconnect());
  const events: Array<[string, unknown]> = [];
  const taken = new Set<number>();
  const waiters: Array<{ name: string; where: (payload: never) => boolean; resolve: (payload: unknown) => void }> = [];
  socket.onAny((name: string, payload: unknown) => {
    events.push([name, payload]);
    const index = events.length - 1;
    for (const waiter of waiters) {
      if (waiter.name === name && waiter.where(payload as never)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        taken.add(index);
        waiter.resolve(payload);
        return;
      }
    }
  });
  const disconnected = new Promise<string>((resolve) => socket.on("disconnect", (reason) => resolve(reason)));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  const waitMs = options.waitMs ?? 30_000;
  return {
    socket,
    events,
    disconnected,
    next<T>(name: string, where: (payload: T) => boolean = () => true): Promise<T> {
      const index = events.findIndex(([event, payload], position) => !taken.has(position) && event === name && where(payload as T));
      if (index >= 0) {
        taken.add(index);
        return Promise.resolve(events[index]![1] as T);
      }
      return new Promise<T>((resolve, reject) => {
        const waiter = { name, where: where as (payload: never) => boolean, resolve: resolve as (payload: unknown) => void };
        waiters.push(waiter);
        // A missing event fails with what did arrive, instead of the test hanging until ava's timeout.
        setTimeout(() => {
          if (!waiters.includes(waiter)) return;
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`No "${name}" event arrived; received: ${JSON.stringify(events.map(([event]) => event))}`));
        }, waitMs).unref();
      });
    },
    emit(event, payload) {
      socket.emit(event, payload);
    },
    request<T>(event: string, payload: unknown): Promise<T> {
      return socket.timeout(waitMs).emitWithAck(event, payload) as Promise<T>;
    },
  };
}
