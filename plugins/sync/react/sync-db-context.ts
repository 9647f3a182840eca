import { createContext, createElement, useContext, type ReactNode } from "react";
import type { SyncDb } from "../client/index.js";
import { SyncReactErrors } from "./errors.js";

const SyncDbContext = createContext<SyncDb | undefined>(undefined);

/** Props of `SyncDbProvider`. */
export interface SyncDbProviderProps {
  /** The client the hooks below read from and write to (made by `createSyncDb`, started by the app). */
  readonly client: SyncDb;
  readonly children?: ReactNode;
}

/**
 * Hands a sync client to the hooks of `svc/sync/react` in its subtree.
 *
 * @example
 * const db = createSyncDb({ name: "todo-app", collections: ["todos"], baseUrl, authProvider });
 * await db.start();
 * root.render(<SyncDbProvider client={db}><App /></SyncDbProvider>);
 */
export function SyncDbProvider({ client, children }: SyncDbProviderProps): ReactNode {
  return createElement(SyncDbContext.Provider, { value: client }, children);
}

/**
 * The client of the nearest `SyncDbProvider` (for what the hooks do not cover: `forceResync`,
 * `goOffline`, `signOut`...). Throws when there is none.
 *
 * @example
 * const db = useSyncDbClient();
 * return <button onClick={() => db.goOffline()}>Go offline</button>;
 */
export function useSyncDbClient(): SyncDb {
  const client = useContext(SyncDbContext);
  if (!client) throw SyncReactErrors.NO_PROVIDER();
  return client;
}
