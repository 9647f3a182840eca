import type { RequestUser } from "../../../contracts/request-user.js";

/** What the app is handed to send one mail with a single-use link (password reset, email verification). */
export interface MailedLink {
  /** The account (as `req.user` would be). */
  readonly user: RequestUser;
  /** Where to send it: the account's sign-in email. */
  readonly email: string;
  /** The single-use token for the link; the app's page sends it back to the matching route. */
  readonly token: string;
  /** When the link stops working. */
  readonly expiresAt: Date;
}

/**
 * The options of a mailed link (`passwordReset`, `emailVerification`): svc sends no mail itself;
 * `send` does, with whatever the app uses, and builds the link to the app's own page.
 *
 * @example
 * { send: ({ email, token }) => comms.sendMail({ to: email, subject: "Reset your password", text: `https://app.example.com/reset?token=${token}` }) }
 */
export interface MailedLinkOptions {
  /** Sends the mail. Runs after the request was answered; a throw or rejection is logged, never answered. */
  send(mail: MailedLink): unknown;
  /** How long a link works: a duration like `30m`, `1h` or `24h` (each option has its default). */
  expiresIn?: string;
}
