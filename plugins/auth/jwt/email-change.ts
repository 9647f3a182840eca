import type { RequestUser } from "../../../contracts/request-user.js";
import { requestValidationError } from "../../validation/index.js";
import { AuthErrors } from "../errors.js";
import type { LoginRateLimiter } from "../http/login-rate-limiter.js";
import type { EmailChangeRequest } from "../http/request-bodies.js";
import type { UserDirectory } from "../users/user-directory.js";
import type { BackgroundWork } from "./background-work.js";
import type { LinkTokens } from "./link-tokens.js";
import type { MailedLink, MailedLinkOptions } from "./mailed-link.js";

/** What the app is handed to send one confirmation mail: `email` is the new address, `user.email` still the old one. */
export type EmailChangeMail = MailedLink;

/** What `onChanged` is told once an address changed. */
export interface EmailChanged {
  /** The account, as `req.user` is now (its new email). */
  readonly user: RequestUser;
  /** The address the account had: where to say that it changed. */
  readonly previousEmail: string | undefined;
  readonly email: string;
}

/**
 * `authPlugin`'s `emailChange` option (JWT provider): `POST /auth/change_email {newEmail,
 * currentPassword}` mails a confirmation link to the new address, and `POST
 * /auth/change_email/confirm {token}` makes it the account's sign-in email. Links work for
 * `expiresIn` (default `1h`).
 *
 * @example
 * emailChange: {
 *   send: ({ email, token }) => comms.sendMail({ to: email, subject: "Confirm your new email", text: `https://app.example.com/confirm-email?token=${token}` }),
 *   onChanged: ({ previousEmail }) => previousEmail && comms.sendMail({ to: previousEmail, subject: "Your sign-in email changed", text: "…" }),
 * }
 */
export interface EmailChangeOptions extends MailedLinkOptions {
  /**
   * Told after an address changed, off the request path (a throw or rejection is logged): mail
   * the previous address, so its owner hears of a change they did not make.
   */
  onChanged?(change: EmailChanged): unknown;
}

export interface EmailChangeDependencies {
  readonly users: UserDirectory;
  readonly links: LinkTokens;
  /** The current-password check of `change_password` (the account's login budget). */
  readonly accounts: { checkCurrentPassword(user: RequestUser, currentPassword: string, ip: string): Promise<void> };
  readonly limiter: LoginRateLimiter;
  /** The password-reset links, when the app mails them: one mailed to the old address stops working. */
  readonly resets?: LinkTokens;
  readonly options: EmailChangeOptions;
  /** Where the mails (and hooks) run, after the answer. */
  readonly background: BackgroundWork;
  readonly now: () => Date;
}

/**
 * Changing the sign-in email, proven twice: the current password (as `change_password`), then a
 * link mailed to the new address. Until the link is followed nothing changes — the old address
 * keeps signing in — and then the new one replaces it, counts as verified, and the old
 * address's password-reset link stops working.
 *
 * @example
 * await emailChange.request(user, { newEmail: "ada@new.example", currentPassword }, ip); // 202
 * await emailChange.confirm(token); // the link's page, 204
 */
export class EmailChange {
  constructor(private readonly deps: EmailChangeDependencies) {}

  /**
   * `POST /auth/change_email`: 400 for the account's own address, 403 for a wrong password (429
   * past the login budget), 409 `AUTH_EMAIL_TAKEN` for another account's, 429 past the account's
   * mail budget (shared with verification resends); then the link is mailed in the background.
   */
  async request(user: RequestUser, { newEmail, currentPassword }: EmailChangeRequest, ip: string): Promise<void> {
    const { users, accounts, limiter, links } = this.deps;
    if (newEmail === user.email) throw requestValidationError([{ path: "newEmail", message: "is already this account's email", keyword: "not" }], "body");
    await accounts.checkCurrentPassword(user, currentPassword, ip);
    if (await users.findOneIncludingDeleted({ email: newEmail })) throw AuthErrors.EMAIL_TAKEN();
    await limiter.consumeVerificationRequest(user.id, ip);
    this.deps.background.run(
      "Email-change mail",
      async () => {
        const { token, expiresAt } = await links.issue(user.id, newEmail);
        await this.deps.options.send({ user, email: newEmail, token, expiresAt });
      },
      { userId: user.id },
    );
  }

  /**
   * `POST /auth/change_email/confirm`: 400 `AUTH_EMAIL_CHANGE_TOKEN_INVALID` for an unknown, used,
   * replaced or expired link or a disabled or deleted account; 409 `AUTH_EMAIL_TAKEN` when another
   * account took the address meanwhile.
   */
  async confirm(token: string): Promise<void> {
    const { users, resets, now } = this.deps;
    const link = await this.deps.links.consume(token);
    if (link?.email === undefined) throw AuthErrors.EMAIL_CHANGE_TOKEN_INVALID();
    let before: RequestUser;
    try {
      before = await users.requireActive(link.userId);
    } catch {
      throw AuthErrors.EMAIL_CHANGE_TOKEN_INVALID();
    }
    await users.changeEmail(link.userId, link.email, now());
    await resets?.revokeUser(link.userId);
    const onChanged = this.deps.options.onChanged;
    if (onChanged) {
      const email = link.email;
      const previousEmail = typeof before.email === "string" ? before.email : undefined;
      this.deps.background.run("emailChange onChanged", async () => void (await onChanged({ user: await users.requireActive(link.userId), previousEmail, email })), { userId: link.userId });
    }
  }

}
