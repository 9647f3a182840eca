import { token } from "../kernel/container.js";
import type { DeliveryWebhook } from "./delivery-webhook.js";
import type { SendResult } from "./comms-result.js";

/**
 * A mail to send. `to` takes one address or several; `from` defaults to the adapter's sender
 * (or the plugin's `defaultFrom`). `templateId` + `dynamicTemplateData` use a provider-side
 * template where the provider has them.
 *
 * @example
 * const mail: MailMessage = { to: "ada@example.com", subject: "Welcome", text: "Hello Ada" };
 */
export interface MailMessage {
  readonly to: string | readonly string[];
  readonly from?: string;
  readonly replyTo?: string;
  readonly subject?: string;
  readonly text?: string;
  readonly html?: string;
  readonly templateId?: string;
  readonly dynamicTemplateData?: Readonly<Record<string, unknown>>;
}

/**
 * The mail port: one provider (SendGrid, SMTP, the console). `sendMail` never throws: every
 * outcome is a `SendResult` with the failure classified.
 *
 * @example
 * const result = await mailer.sendMail({ to: "ada@example.com", subject: "Hi", text: "Hello" });
 */
export interface Mailer {
  /** Names the provider in the delivery log's `attempts[]` (`sendgrid`, `smtp`, `console`). */
  readonly name: string;
  sendMail(message: MailMessage): Promise<SendResult>;
  /** The provider's delivery-event webhook, when it has one (mounted by the comms plugin). */
  readonly webhook?: DeliveryWebhook;
}

/** The mail providers the comms plugin uses, first first (bound by the plugin). */
export const MAILERS = token<readonly Mailer[]>("comms.Mailers");
