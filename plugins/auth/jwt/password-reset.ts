import type { RequestUser } from "../../../contracts/request-user.js";
import { AuthErrors } from "../errors.js";
import type { LoginRateLimiter } from "../http/login-rate-limiter.js";
import type { UserDirectory } from "../users/user-directory.js";
import type { BackgroundWork } from "./background-work.js";
import type { JwtAuthService } from "./jwt-auth-service.js";
import { checkPasswordPolicy, type PasswordPolicy } from "./password-policy.js";
import type { LinkTokens } from "./link-tokens.js";
import type { MailedLink, MailedLinkOptions } from "./mailed-link.js";

/** What the app is handed to send one password-reset mail. */
export type PasswordResetMail = MailedLink;

/**
 * `authPlugin`'s `passwordReset` option (JWT provider): turns on `POST /auth/password_reset` and
 * `POST /auth/password_reset/confirm`; links work for `expiresIn` (default `1h`).
 *
 * @example
 * passwordReset: {
 *   send: ({ email, token }) => comms.sendMail({ to: email, subject: "Reset your password", text: `https://app.example.com/reset?token=${token}` }),
 * }
 */
export type PasswordResetOptions = MailedLinkOptions;

export interface PasswordResetDependencies {
  readonly users: UserDirectory;
  readonly tokens: LinkTokens;
  readonly accounts: JwtAuthService;
  readonly limiter: LoginRateLimiter;
  readonly passwordPolicy: PasswordPolicy;
  readonly send: PasswordResetOptions["send"];
  /** Where the mails (and hooks) run, after the answer. */
  readonly background: BackgroundWork;
  readonly now: () => Date;
}

/**
 * "Forgot your password?" by mail. Asking answers the same whether or not the email has an
 * account (no account discovery), and the mail goes out after the answer, so its timing tells
 * nothing either. Confirming sets the password through `ACCOUNTS.setPassword` (the policy, every
 * sign-in ended) and uses the token up; a token whose account was disabled or deleted meanwhile
 * is refused like an unknown one.
 *
 * @example
 * await reset.request("ada@example.com", req.ip); // the app's `send` gets the token
 * await reset.confirm({ token, newPassword: "a new horse battery" });
 */
export class PasswordReset {
  constructor(private readonly deps: PasswordResetDependencies) {}

  /** `POST /auth/password_reset`: counts the request (429 over the limits), then mails in the background. */
  async request(email: string, ip: string): Promise<void> {
    await this.deps.limiter.consumeResetRequest(email, ip);
    this.deps.background.run("Password-reset mail", () => this.mail(email));
  }

  /** `POST /auth/password_reset/confirm`: 400 `AUTH_RESET_TOKEN_INVALID` or `AUTH_WEAK_PASSWORD`. */
  async confirm({ token, newPassword }: { token: string; newPassword: string }): Promise<void> {
    const { users, tokens, accounts, limiter } = this.deps;
    // The policy before the token is used up, so a refused password leaves the link working.
    checkPasswordPolicy(newPassword, this.deps.passwordPolicy);
    const userId = (await tokens.consume(token))?.userId;
    if (userId === undefined) throw AuthErrors.RESET_TOKEN_INVALID();
    let user: RequestUser;
    try {
      user = await users.requireActive(userId);
    } catch {
      throw AuthErrors.RESET_TOKEN_INVALID();
    }
    await accounts.setPassword(userId, newPassword);
    // Following the mailed link proved the address too (a no-op without emailVerificationPlugin).
    await users.markEmailVerified(userId, this.deps.now());
    // Whoever read the mail owns the account: failed logins of a guesser no longer lock it.
    if (typeof user.email === "string") await limiter.forgiveAccount(user.email);
  }


  private async mail(email: string): Promise<void> {
    const { users, tokens, send } = this.deps;
    const record = await users.findOne({ email });
    // No account, or one that may not sign in: nothing is sent, and the asker cannot tell.
    if (!record || record.deleted === true || record.disabled === true) return;
    const user = users.assertActive(record);
    const { token, expiresAt } = await tokens.issue(user.id);
    await send({ user, email, token, expiresAt });
  }
}
