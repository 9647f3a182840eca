import type { SyncAuthProvider } from "../../plugins/sync/client/index.js";
import { browser } from "./browser.js";

/** A signed-in user of the demo, kept in localStorage so a reload stays signed in. */
export interface Session {
  /** The account's sign-in email as this device last heard it (an email change updates it). */
  email: string;
  readonly userId: string;
  token: string;
  refreshToken: string;
}

const KEY = "svc-web-demo-session";

export function loadSession(): Session | undefined {
  const stored = browser.localStorage.getItem(KEY);
  return stored ? (JSON.parse(stored) as Session) : undefined;
}

function saveSession(session: Session | undefined): void {
  if (session) browser.localStorage.setItem(KEY, JSON.stringify(session));
  else browser.localStorage.removeItem(KEY);
}

/** Signs in (or up) with the demo's auth routes; throws the server's message when refused. */
export async function signIn(mode: "login" | "signup", email: string, password: string): Promise<Session> {
  const response = await fetch(`${browser.location.origin}/auth/${mode}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = (await response.json()) as { data?: { token: string; refreshToken: string; userId: string }; errors?: Array<{ detail?: string; title?: string }> };
  if (!response.ok || !body.data) throw new Error(body.errors?.[0]?.detail ?? body.errors?.[0]?.title ?? `Sign-in failed (${response.status})`);
  const session = { email, userId: body.data.userId, token: body.data.token, refreshToken: body.data.refreshToken };
  saveSession(session);
  return session;
}

/** Sends a JSON body to one of the demo's auth routes; resolves when answered 2xx, else throws the server's message. */
async function post(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${browser.location.origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (response.ok) return;
  throw await failureOf(response);
}

/** Asks for a password-reset mail (the answer is the same whether or not the email has an account). */
export function requestPasswordReset(email: string): Promise<void> {
  return post("/auth/password_reset", { email });
}

/** Confirms the account's email with the token from a verification link. */
export function verifyEmail(token: string): Promise<void> {
  return post("/auth/verify_email", { token });
}

/** Sets a new password with the token from a reset link. */
export function resetPassword(token: string, newPassword: string): Promise<void> {
  return post("/auth/password_reset/confirm", { token, newPassword });
}

/** Confirms an email change with the token from the link mailed to the new address. */
export function confirmEmailChange(token: string): Promise<void> {
  return post("/auth/change_email/confirm", { token });
}

/**
 * A request as the signed-in user with an optional JSON body: the answer's `data` (undefined for
 * a 204), or the server's message thrown.
 */
export async function requestAs<T = undefined>(session: Session, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await authorizedFetch(session, path, {
    method: init.method ?? "GET",
    ...(init.body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(init.body) }),
  });
  if (!response.ok) throw await failureOf(response);
  return response.status === 204 ? (undefined as T) : ((await response.json()) as { data: T }).data;
}

/** Asks to change the sign-in email: a confirmation link is mailed to the new address. */
export async function requestEmailChange(session: Session, newEmail: string, currentPassword: string): Promise<void> {
  await requestAs(session, "/auth/change_email", { method: "POST", body: { newEmail, currentPassword } });
}

/** Reads the account's email from the server into the session (after an email change). */
export async function reloadEmail(session: Session): Promise<string> {
  session.email = (await requestAs<{ email: string }>(session, "/auth/me")).email;
  saveSession(session);
  return session.email;
}

/** The server's message of a refused answer, as an Error. */
export async function failureOf(response: Response): Promise<Error> {
  const body = (await response.json().catch(() => undefined)) as { errors?: Array<{ detail?: string; title?: string }> } | undefined;
  return new Error(body?.errors?.[0]?.detail ?? body?.errors?.[0]?.title ?? `The server answered ${response.status}`);
}

/**
 * Signs out: the device forgets the session at once, and the server ends that sign-in (its
 * refresh token revoked; best effort, the device forgets it either way).
 */
export async function signOut(session: Session): Promise<void> {
  saveSession(undefined);
  await fetch(`${browser.location.origin}/auth/logout`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ refreshToken: session.refreshToken }),
  }).catch(() => undefined);
}

/** Each session's refresh under way: one at a time, since a refresh token is used once (a second use ends the sign-in). */
const refreshing = new WeakMap<Session, Promise<boolean>>();
/** Who wants to hear that a session's tokens changed (the sync client reconnects with the new one). */
const authListeners = new WeakMap<Session, Set<() => void>>();

/** Exchanges the session's refresh token for a new pair; false when the server refuses (the sign-in ended). */
function refreshSession(session: Session): Promise<boolean> {
  let running = refreshing.get(session);
  if (!running) {
    running = (async () => {
      const response = await fetch(`${browser.location.origin}/auth/refresh_token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refreshToken: session.refreshToken }),
      }).catch(() => undefined);
      if (!response?.ok) return false;
      const body = (await response.json()) as { data: { token: string; refreshToken: string } };
      session.token = body.data.token;
      session.refreshToken = body.data.refreshToken;
      saveSession(session);
      authListeners.get(session)?.forEach((listener) => listener());
      return true;
    })().finally(() => refreshing.delete(session));
    refreshing.set(session, running);
  }
  return running;
}

/** A request as the signed-in user: refreshes the access token once when the server refuses it. */
export async function authorizedFetch(session: Session, path: string, init: RequestInit = {}): Promise<Response> {
  const send = () => fetch(`${browser.location.origin}${path}`, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${session.token}` } });
  const response = await send();
  if (response.status !== 401 || !(await refreshSession(session))) return response;
  return send();
}

/** The sync client's auth provider over a session: refreshes the access token when the server refuses it. */
export function sessionAuth(session: Session): SyncAuthProvider {
  return {
    getToken: () => session.token,
    getUserId: () => session.userId,
    onAuthChange(listener) {
      const listeners = authListeners.get(session) ?? new Set<() => void>();
      authListeners.set(session, listeners);
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    refresh: () => refreshSession(session),
  };
}
