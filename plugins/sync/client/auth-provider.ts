/**
 * Where the sync client gets its credentials. `getToken` is sent as `Authorization: Bearer` on
 * HTTP and as the socket's handshake `auth.token`; `getUserId` names the local database (each
 * user gets their own); `onAuthChange` and `refresh` end an auth pause (SPEC §3.2).
 *
 * @example
 * const authProvider: SyncAuthProvider = {
 *   getToken: () => localStorage.getItem("token"),
 *   getUserId: () => localStorage.getItem("userId"),
 *   onAuthChange: (listener) => { window.addEventListener("signed-in", listener); return () => window.removeEventListener("signed-in", listener); },
 * };
 */
export interface SyncAuthProvider {
  /** The current access token, or null when signed out. */
  getToken(): Promise<string | null | undefined> | string | null | undefined;
  /** The signed-in user's id, or null when signed out. */
  getUserId(): Promise<string | null | undefined> | string | null | undefined;
  /** Calls `listener` whenever the credentials change (signed in, token refreshed); returns an unsubscribe function. */
  onAuthChange(listener: () => void): () => void;
  /** Gets fresh credentials after an auth failure; resolves true (or a token) when it did. */
  refresh?(): Promise<boolean | string | null | undefined | void>;
}

/** The part of a better-auth style client the session adapter uses. */
export interface SessionAuthClient {
  getSession(): Promise<{ data?: { user?: { id?: string | null } | null; session?: { token?: string | null } | null } | null } | null | undefined>;
  /** better-auth's nanostores store: `$store.listen("$sessionSignal", cb)` fires on sign-in and sign-out. */
  $store?: { listen(signal: string, listener: () => void): (() => void) | void };
}

/**
 * A `SyncAuthProvider` over a session-auth client (`AUTH_PROVIDER=session-auth` on the server):
 * the session token is the bearer token and the session's user is the user.
 *
 * @example
 * import { createAuthClient } from "better-auth/client";
 * const db = createSyncDb({ name: "app", collections: ["todos"], baseUrl, authProvider: sessionAuthAdapter(createAuthClient({ baseURL })) });
 */
export function sessionAuthAdapter(authClient: SessionAuthClient): SyncAuthProvider {
  const session = async () => (await authClient.getSession())?.data ?? null;
  return {
    getToken: async () => (await session())?.session?.token ?? null,
    getUserId: async () => (await session())?.user?.id ?? null,
    onAuthChange(listener) {
      const stop = authClient.$store?.listen("$sessionSignal", listener);
      return typeof stop === "function" ? stop : () => undefined;
    },
    refresh: async () => Boolean((await session())?.session?.token),
  };
}
