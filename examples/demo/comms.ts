// Communications for the demo: every channel on its console adapter (messages are logged, never
// sent), and a welcome mail for each sign-up. A real app passes provider adapters instead (see
// docs/comms.md); the console ones log through the framework's logger.
import { logger, type EmailVerificationMail, type PasswordResetMail, type RequestUser } from "../../index.js";
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

const VERIFY_EMAIL = {
  subject: "Confirm your svc demo email",
  text: "Confirm that this address is yours (the link works once, until {{expires}}):\n\n{{link}}\n",
  html: '<p><a href="{{link}}">Confirm that this address is yours</a> (the link works once, until {{expires}}).</p>',
};

/** Mails whose bodies hold a one-time link: a credential, kept out of the delivery log. */
const LINK_MAILS = new Set([PASSWORD_RESET.subject, VERIFY_EMAIL.subject]);

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

/**
 * The auth plugin's `passwordReset.send`: mails the link to the web demo's reset page
 * (`{appUrl}/app/?reset=<token>`). The console mailer sends nothing and logs no body, so the demo
 * also prints the link on the server's terminal (`printLink`, off in tests), as it prints the
 * first admin's password.
 */
export function passwordResetMail(comms: CommsPlugin, appUrl: string, printLink = true): (mail: PasswordResetMail) => Promise<void> {
  return async ({ email, token, expiresAt }) => {
    const link = `${appUrl.replace(/\/+$/, "")}/app/?reset=${encodeURIComponent(token)}`;
    await comms.getCommsService().sendMail({ to: email, ...renderTemplate({ data: { link, expires: expiresAt.toISOString() }, template: PASSWORD_RESET }) });
    // Deliberately on stdout, not through the logger: log lines are shipped and kept.
    if (printLink) process.stdout.write(`\nPassword-reset link for ${email} (the demo's console mailer sends no mail): ${link}\n\n`);
  };
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

/**
 * The auth plugin's `emailVerification.send`: mails the link to the web demo
 * (`{appUrl}/app/?verify=<token>`), and prints it on the terminal outside tests, as the reset
 * link is.
 */
export function verificationMail(comms: CommsPlugin, appUrl: string, printLink = true): (mail: EmailVerificationMail) => Promise<void> {
  return async ({ email, token, expiresAt }) => {
    const link = `${appUrl.replace(/\/+$/, "")}/app/?verify=${encodeURIComponent(token)}`;
    await comms.getCommsService().sendMail({ to: email, ...renderTemplate({ data: { link, expires: expiresAt.toISOString() }, template: VERIFY_EMAIL }) });
    if (printLink) process.stdout.write(`\nEmail-verification link for ${email} (the demo's console mailer sends no mail): ${link}\n\n`);
  };
}
