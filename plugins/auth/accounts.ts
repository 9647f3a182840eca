import { token } from "../../kernel/container.js";
import type { RequestUser } from "../../contracts/request-user.js";

/**
 * Server-side account administration for the JWT provider: seed scripts, admin tools and tests
 * create password users and reset passwords through it (never by writing hashes themselves).
 *
 * @example
 * const accounts = ctx.resolve(ACCOUNTS);
 * await accounts.createPasswordUser({ email: "admin@example.com", admin: true }, password);
 */
export interface Accounts {
  /** Creates a user (any fields, `admin` included: this is server code) with a password. 409 if the email exists. */
  createPasswordUser(fields: Record<string, unknown> & { email: string }, password: string): Promise<RequestUser>;
  /** Sets or replaces a user's password. */
  setPassword(userId: string, password: string): Promise<void>;
}

export const ACCOUNTS = token<Accounts>("auth.Accounts");
