import { token } from "../kernel/container.js";
import type { RequestUser } from "./request-user.js";

/**
 * Turns a bearer credential into the user it belongs to, under whichever auth provider the app
 * runs (a JWT access token, or a session token with `AUTH_PROVIDER=session-auth`). Socket
 * servers (feature-flag live updates, sync) authenticate handshakes through it, so they accept
 * exactly what HTTP routes accept and see the same `RequestUser`.
 *
 * `authenticateToken` rejects with a 401 `APIError` (codes from the auth plugin's catalogue,
 * e.g. `AUTH_TOKEN_INVALID`, `AUTH_TOKEN_EXPIRED`, `AUTH_USER_DISABLED`) for a bad or expired
 * token and for a disabled or deleted user; it never resolves to an anonymous user.
 *
 * @example
 * io.use(async (socket, next) => {
 *   try {
 *     socket.data.user = await ctx.resolve(AUTHENTICATOR).authenticateToken(String(socket.handshake.auth.token));
 *     next();
 *   } catch (error) {
 *     next(error as Error);
 *   }
 * });
 */
export interface Authenticator {
  authenticateToken(token: string): Promise<RequestUser>;
  /**
   * When a valid credential stops being valid, if the provider can tell: a JWT's `exp`, a
   * session's current `expiresAt` (sessions extended on use report their new end). Servers that
   * keep a socket open for hours re-check the credential then (the sync socket sends
   * `sync:auth-expired`). Rejects as `authenticateToken` does for a credential already invalid.
   *
   * @example
   * const end = await authenticator.expiresAt?.(token); // 2026-11-23T14:15:00.000Z
   */
  expiresAt?(token: string): Promise<Date | undefined>;
}

export const AUTHENTICATOR = token<Authenticator>("auth.Authenticator");
