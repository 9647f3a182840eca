import type { RequestUser } from "../../../contracts/request-user.js";
import { AuthErrors } from "../errors.js";
import type { LoginRateLimiter } from "../http/login-rate-limiter.js";
import { EMAIL_VERIFIED_AT } from "../users/email-verification-plugin.js";
import type { UserDirectory } from "../users/user-directory.js";
import type { BackgroundWork } from "./background-work.js";
import type { LinkTokens } from "./link-tokens.js";
import type { MailedLink, MailedLinkOptions } from "./mailed-link.js";

/** What the app is handed to send one email-verification mail. */
export type EmailVerificationMail = MailedLink;

/**
 * `authPlugin`'s `emailVerification` option (JWT provider; the user model needs
 * `emailVerificationPlugin`): a link is mailed at sign-up (and on `POST /auth/verify_email/resend`),
 * and `POST /auth/verify_email {token}` records `emailVerifiedAt`; links work for `expiresIn`
 * (default `24h`).
 *
 * @example
 * emailVerification: {
 *   send: ({ email, token }) => comms.sendMail({ to: email, subject: "Confirm your email", text: `https://app.example.com/verify?token=${token}` }),
 * }
 */
export type EmailVerificationOptions = MailedLinkOptions;

export interface EmailVerificationDependencies {
  readonly users: UserDirectory;
  readonly links: LinkTokens;
  readonly limiter: LoginRateLimiter;
  readonly send: EmailVerificationOptions["send"];
  /** Where the mails (and hooks) run, after the answer. */
  readonly background: BackgroundWork;
  readonly now: () => Date;
}

/**
 * Verifying that a user reads mail at their sign-in email. Mails go out off the request path
 * (a failing `send` is logged); a link is single use, one per user (a newer one replaces the
 * older), and confirming it stamps `emailVerifiedAt` once.
 *
 * @example
 * verification.mailLink(user); // after sign-up
 * await verification.confirm(token); // POST /auth/verify_email
 */
export class EmailVerification {
  constructor(private readonly deps: EmailVerificationDependencies) {}

  /** Mails a link to a user whose email is not verified yet (in the background). */
  mailLink(user: RequestUser): void {
    this.deps.background.run("Email-verification mail", () => this.mail(user), { userId: user.id });
  }

  /** `POST /auth/verify_email/resend`: 409 when already verified, 429 over the account's limit. */
  async resend(user: RequestUser, ip: string): Promise<void> {
    if (user[EMAIL_VERIFIED_AT] !== undefined && user[EMAIL_VERIFIED_AT] !== null) throw AuthErrors.EMAIL_ALREADY_VERIFIED();
    await this.deps.limiter.consumeVerificationRequest(user.id, ip);
    this.mailLink(user);
  }

  /** `POST /auth/verify_email`: 400 `AUTH_VERIFY_TOKEN_INVALID` for an unknown, used, replaced or expired link, or a disabled or deleted account. */
  async confirm(token: string): Promise<void> {
    const userId = (await this.deps.links.consume(token))?.userId;
    if (userId === undefined) throw AuthErrors.VERIFY_TOKEN_INVALID();
    try {
      await this.deps.users.requireActive(userId);
    } catch {
      throw AuthErrors.VERIFY_TOKEN_INVALID();
    }
    await this.deps.users.markEmailVerified(userId, this.deps.now());
  }


  private async mail(user: RequestUser): Promise<void> {
    if (typeof user.email !== "string") return;
    const { token, expiresAt } = await this.deps.links.issue(user.id);
    await this.deps.send({ user, email: user.email, token, expiresAt });
  }
}
