import type { RequestHandler } from "express";
import type { Accounts } from "../../contracts/accounts.js";
import type { Authenticator } from "../../contracts/authenticator.js";

/**
 * What a started auth provider (JWT or session) hands the plugin: the services its tokens are
 * bound to. They exist only after start, so the plugin exposes them with `startedService`.
 *
 * @example
 * runtime = await startJwtAuth(ctx, { users, env, options });
 * runtime.authenticator.authenticateToken(token);
 */
export interface AuthRuntime {
  /** Behind `AUTHENTICATION_MIDDLEWARE`: sets `req.user` or leaves the request anonymous. */
  readonly middleware: RequestHandler;
  /** Behind `AUTHENTICATOR`. */
  readonly authenticator: Authenticator;
  /** Behind `ACCOUNTS` (JWT only: under session auth better-auth owns passwords). */
  readonly accounts?: Accounts;
  /** Waits for work the provider does off the request path (password-reset mails under way). */
  readonly stop?: () => Promise<void>;
}
