import { token } from "../kernel/container.js";
import type { RequestUser } from "./request-user.js";

/**
 * Server-side account administration: seed scripts, admin tools, comms flows and tests create
 * password users and reset passwords through it, never by writing hashes themselves. The auth
 * plugin binds it under the JWT provider; under session auth (where better-auth owns passwords)
 * nothing binds it, so `ctx.container.tryResolve(ACCOUNTS)` is undefined. Resolving it before
 * the auth plugin started throws `AUTH_NOT_STARTED`.
 *
 * @example
 * const accounts = ctx.resolve(ACCOUNTS);
 * await accounts.createPasswordUser({ email: "admin@example.com", admin: true }, password);
 * await accounts.setPassword(userId, newPassword); // also ends the user's sign-ins
 * await accounts.endSignIns(userId); // "sign out everywhere", e.g. for an account taken over
 */
export interface Accounts {
  /**
   * Creates a user (any fields, `admin` included: this is server code) with a password. The
   * password policy applies (`AUTH_WEAK_PASSWORD`); an existing email is `AUTH_EMAIL_TAKEN`.
   */
  createPasswordUser(fields: Record<string, unknown> & { email: string }, password: string): Promise<RequestUser>;
  /**
   * Sets or replaces a user's password and ends every sign-in of that user. The policy applies
   * (`AUTH_WEAK_PASSWORD`); an unknown, deleted or malformed id is `AUTH_USER_NOT_FOUND`.
   */
  setPassword(userId: string, password: string): Promise<void>;
  /**
   * Ends every sign-in of the user at once: refresh tokens revoked, access tokens refused from
   * the next request on (`AUTH_TOKEN_REVOKED`), sockets told `sync:auth-expired`. The password is
   * kept; an unknown id ends nothing.
   */
  endSignIns(userId: string): Promise<void>;
}

export const ACCOUNTS = token<Accounts>("auth.Accounts");
