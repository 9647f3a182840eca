import { eventually } from "./wait-for.js";
import { createMemoryPersister, createSocketTransport, createSyncDb, generateMutationId, type SyncAuthProvider, type SyncDb, type SyncDbOptions } from "../index.js";

/** A signed-up user of the test app (test/support/sync-test-app.ts's `SyncCaller`; plugins may not import test/). */
export interface Caller {
  readonly token: string;
  readonly id: string;
}

/** The URLs a started sync test app listens on. */
export interface ServerUrls {
  readonly url: string;
  readonly socketUrl: string;
}

/** An auth provider for a caller whose token the test can change (and announce). */
export function callerAuth(caller: Caller, refresh?: () => Promise<string | null>): SyncAuthProvider & { token: string; announce(): void } {
  const listeners = new Set<() => void>();
  const auth = {
    token: caller.token,
    getToken: () => auth.token,
    getUserId: () => caller.id,
    onAuthChange(listener: () => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    announce: () => listeners.forEach((listener) => listener()),
    ...(refresh
      ? {
          async refresh() {
            const token = await refresh();
            if (token) auth.token = token;
            return Boolean(token);
          },
        }
      : {}),
  };
  return auth;
}

/** A sync client of `caller` against the real server (one device: its own database name). */
export function deviceOf(
  t: { teardown: (fn: () => Promise<void>) => void },
  urls: ServerUrls,
  caller: Caller,
  options: Partial<SyncDbOptions> = {},
): SyncDb {
  const db = createSyncDb({
    name: `device-${generateMutationId()}`,
    collections: ["synctodos"],
    baseUrl: urls.url,
    transport: createSocketTransport({ url: urls.socketUrl }),
    authProvider: callerAuth(caller),
    persisterFactory: createMemoryPersister(),
    ...options,
  });
  t.teardown(() => db.stop());
  return db;
}

/**
 * Queues `count` creates offline, goes online and stops the device while a batch is in flight
 * (after 20 sends): the ack of that batch, if the server applied it, is lost with the socket.
 * Resolves with the queued mutations (`{mutationId, id}`) once the device has stopped.
 */
export async function queueThenStopMidDrain(device: SyncDb, count = 60): Promise<Array<{ mutationId: string; id: string }>> {
  device.goOffline();
  const queued = Array.from({ length: count }, (_, index) => device.mutate({ collection: "synctodos", operation: "create", data: { title: `queued ${index}` } }));
  let stopping: Promise<void> | undefined;
  device.onStatusChange((status) => {
    if (!stopping && status.draining && status.sentThisDrain >= 20) stopping = device.stop();
  });
  device.goOnline();
  await eventually(() => stopping !== undefined);
  await stopping;
  return queued;
}
