// Communications for the demo: every channel on its console adapter (messages are logged, never
// sent), and a welcome mail for each sign-up. A real app passes provider adapters instead (see
// docs/comms.md); the console ones log through the framework's logger.
import { logger, type EmailChanged, type EmailChangeMail, type EmailVerificationMail, type PasswordResetMail, type RequestUser } from "../../index.js";
import {
  commsPlugin,
  ConsoleMailer,
  ConsolePushSender,
  ConsoleSmsSender,
  ConsoleVerificationSender,
  renderTemplate,
  type CommsPlugin,
} from "../../plugins/comms/index.js";

const WELCOME = {
  subject: "Welcome to the svc demo, {{name}}",
  // No address in the body: the delivery log keeps bodies, and recipients are redacted there.
  text: "Hello {{name}},\n\nyour account is ready. Your todos sync across your devices.\n",
  html: "<p>Hello {{name}},</p><p>your account is ready. Your todos sync across your devices.</p>",
};

const PASSWORD_RESET = {
  subject: "Reset your svc demo password",
  text: "Someone asked to reset the password of this account. If it was you, choose a new one here (the link works once, until {{expires}}):\n\n{{link}}\n\nIf it was not you, ignore this mail: nothing changes.\n",
  html: '<p>Someone asked to reset the password of this account. If it was you, <a href="{{link}}">choose a new one</a> (the link works once, until {{expires}}).</p><p>If it was not you, ignore this mail: nothing changes.</p>',
};

const CONFIRM_NEW_EMAIL = {
  subject: "Confirm your new svc demo email",
  text: "Someone asked to make this address the sign-in email of their svc demo account. If it was you, confirm it here (the link works once, until {{expires}}):\n\n{{link}}\n\nIf it was not you, ignore this mail: nothing changes.\n",
  html: '<p>Someone asked to make this address the sign-in email of their svc demo account. If it was you, <a href="{{link}}">confirm it</a> (the link works once, until {{expires}}).</p><p>If it was not you, ignore this mail: nothing changes.</p>',
};

const EMAIL_CHANGED = {
  subject: "Your svc demo sign-in email changed",
  text: "The sign-in email of your svc demo account is now {{email}}. If you did not change it, reset your password and contact support.\n",
  html: "<p>The sign-in email of your svc demo account is now {{email}}. If you did not change it, reset your password and contact support.</p>",
};

const VERIFY_EMAIL = {
  subject: "Confirm your svc demo email",
  text: "Confirm that this address is yours (the link works once, until {{expires}}):\n\n{{link}}\n",
  html: '<p><a href="{{link}}">Confirm that this address is yours</a> (the link works once, until {{expires}}).</p>',
};

/**
 * Mails whose bodies hold a one-time link (a credential) or an address (which the log's
 * recipient redaction would otherwise leak): their bodies are kept out of the delivery log.
 */
const LINK_MAILS = new Set([PASSWORD_RESET.subject, VERIFY_EMAIL.subject, CONFIRM_NEW_EMAIL.subject, EMAIL_CHANGED.subject]);

/** The demo's comms plugin (a new instance per app: it holds the app's service). */
export function demoComms(): CommsPlugin {
  return commsPlugin({
    mail: new ConsoleMailer({ logger }),
    sms: new ConsoleSmsSender({ logger }),
    push: new ConsolePushSender({ logger }),
    verification: new ConsoleVerificationSender({ logger }),
    defaultFrom: "demo@example.com",
    retainPayloadDays: 7,
    // A reset link is a credential: its mail's body stays out of the delivery log (admins read it).
    redactPayload: (context, payload) => ("subject" in context.message && LINK_MAILS.has(context.message.subject ?? "") ? { ...payload, text: "[redacted]", html: "[redacted]" } : payload),
  });
}

/** Which page of the web demo a mailed link opens (`{appUrl}/app/?<query>=<token>`), with what mail. */
interface LinkPage {
  readonly query: string;
  readonly template: { subject: string; text: string; html: string };
  /** How the terminal line names the link. */
  readonly label: string;
}

/**
 * A `send` of the auth plugin's mailed links: mails the link to the web demo's page for it. The
 * console mailer sends nothing and logs no body, so the demo also prints the link on the
 * server's terminal (`printLink`, off in tests), as it prints the first admin's password.
 */
function linkMail(comms: CommsPlugin, appUrl: string, page: LinkPage, printLink: boolean): (mail: { email: string; token: string; expiresAt: Date }) => Promise<void> {
  return async ({ email, token, expiresAt }) => {
    const link = `${appUrl.replace(/\/+$/, "")}/app/?${page.query}=${encodeURIComponent(token)}`;
    await comms.getCommsService().sendMail({ to: email, ...renderTemplate({ data: { link, expires: expiresAt.toISOString() }, template: page.template }) });
    // Deliberately on stdout, not through the logger: log lines are shipped and kept.
    if (printLink) process.stdout.write(`\n${page.label} link for ${email} (the demo's console mailer sends no mail): ${link}\n\n`);
  };
}

/** The auth plugin's `passwordReset.send`: the link opens the web demo's reset page (`/app/?reset=<token>`). */
export function passwordResetMail(comms: CommsPlugin, appUrl: string, printLink = true): (mail: PasswordResetMail) => Promise<void> {
  return linkMail(comms, appUrl, { query: "reset", template: PASSWORD_RESET, label: "Password-reset" }, printLink);
}

/**
 * The auth plugin's `onSignup`: mails the new user a welcome. The result is logged in the
 * delivery log (`GET /comms/messages` as an admin); a failure never affects the sign-up.
 */
export function welcomeMail(comms: CommsPlugin): (user: RequestUser) => Promise<void> {
  return async (user) => {
    if (typeof user.email !== "string") return;
    const name = typeof user.name === "string" && user.name !== "" ? user.name : user.email.split("@")[0]!;
    await comms.getCommsService().sendMail({ to: user.email, ...renderTemplate({ data: { name }, template: WELCOME }) });
  };
}

/** The auth plugin's `emailVerification.send`: the link confirms the address in the web demo (`/app/?verify=<token>`). */
export function verificationMail(comms: CommsPlugin, appUrl: string, printLink = true): (mail: EmailVerificationMail) => Promise<void> {
  return linkMail(comms, appUrl, { query: "verify", template: VERIFY_EMAIL, label: "Email-verification" }, printLink);
}

/** The auth plugin's `emailChange.send`: the link, mailed to the new address, confirms it in the web demo (`/app/?email_change=<token>`). */
export function emailChangeMail(comms: CommsPlugin, appUrl: string, printLink = true): (mail: EmailChangeMail) => Promise<void> {
  return linkMail(comms, appUrl, { query: "email_change", template: CONFIRM_NEW_EMAIL, label: "Email-change" }, printLink);
}

/** The auth plugin's `emailChange.onChanged`: the previous address hears that the account moved, in case that was not its owner. */
export function emailChangedNotice(comms: CommsPlugin): (change: EmailChanged) => Promise<void> {
  return async ({ previousEmail, email }) => {
    if (previousEmail === undefined) return;
    await comms.getCommsService().sendMail({ to: previousEmail, ...renderTemplate({ data: { email }, template: EMAIL_CHANGED }) });
  };
}
