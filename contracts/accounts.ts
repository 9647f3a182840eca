import { token } from "../kernel/container.js";
import type { SchemaObject } from "../kernel/openapi-registry.js";
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
 * const [phone] = await accounts.listSignIns(userId); // the user's devices
 * await accounts.endSignIn(userId, phone.id); // that device only
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
  /**
   * The user's sign-ins (devices) that can still be refreshed, newest activity first (at most
   * 100); empty for an unknown id.
   */
  listSignIns(userId: string): Promise<AccountSignIn[]>;
  /**
   * Ends one sign-in of the user, as signing out on that device would: its refresh tokens are
   * revoked and its access tokens refused from the next request on. False when the user has no
   * such sign-in that could still be used.
   */
  endSignIn(userId: string, signInId: string): Promise<boolean>;
  /**
   * Tells the auth plugin that server code deleted this user (the record removed or
   * soft-deleted; the admin calls it for each user it deletes): the password hash is removed,
   * every sign-in ends, mailed links stop working, and the app's `accountDeletion.onDeleted` runs
   * (its failure is logged, never thrown). `POST /auth/delete_account` ends with the same.
   */
  accountDeleted(user: RequestUser): Promise<void>;
}

/** One sign-in (device) of a user, as `Accounts.listSignIns` and `GET /auth/sign_ins` show it. */
export interface AccountSignIn {
  /** The sign-in's id (an access token's `sid` claim). */
  readonly id: string;
  readonly signedInAt: Date;
  /** When its latest tokens were issued (the sign-in, or its last refresh). */
  readonly lastActiveAt: Date;
  /** The device's `User-Agent` as of its last refresh (cut to 256 characters). */
  readonly userAgent?: string;
  /** The IP it last refreshed from. */
  readonly ip?: string;
}

export const ACCOUNTS = token<Accounts>("auth.Accounts");

/** The JSON schema of an `AccountSignIn` as routes answer it (dates as ISO strings), for OpenAPI. */
export const ACCOUNT_SIGN_IN_SCHEMA: SchemaObject = {
  type: "object",
  properties: {
    id: { type: "string", description: "The sign-in's id (an access token's `sid` claim)" },
    signedInAt: { type: "string", format: "date-time", description: "When the user signed in" },
    lastActiveAt: { type: "string", format: "date-time", description: "When its tokens were last issued (the sign-in, or its latest refresh)" },
    userAgent: { type: "string", description: "The User-Agent of the device as of its last refresh (when it sent one)" },
    ip: { type: "string", description: "The IP the device last refreshed from" },
  },
  required: ["id", "signedInAt", "lastActiveAt"],
};
