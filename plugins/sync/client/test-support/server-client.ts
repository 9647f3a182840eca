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
