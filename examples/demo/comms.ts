// Communications for the demo: every channel on its console adapter (messages are logged, never
// sent), and a welcome mail for each sign-up. A real app passes provider adapters instead (see
// docs/comms.md); the console ones log through the framework's logger.
import { logger, type RequestUser } from "../../index.js";
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

/** The demo's comms plugin (a new instance per app: it holds the app's service). */
export function demoComms(): CommsPlugin {
  return commsPlugin({
    mail: new ConsoleMailer({ logger }),
    sms: new ConsoleSmsSender({ logger }),
    push: new ConsolePushSender({ logger }),
    verification: new ConsoleVerificationSender({ logger }),
    defaultFrom: "demo@example.com",
    retainPayloadDays: 7,
  });
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
