import { defineErrors } from "../../kernel/errors.js";

/**
 * Set-up mistakes of the mail adapters, thrown when one is constructed (sends never throw).
 *
 * @example
 * new SendGridMailer({ env: {} }); // throws MAIL_ADAPTER_API_KEY_REQUIRED
 */
export const MailAdapterErrors = defineErrors("MAIL_ADAPTER", {
  /** SPEC §7: the SendGrid adapter needs `apiKey` or `MAIL_ADAPTER_API_KEY` at construction. */
  API_KEY_REQUIRED: { message: () => "The SendGrid mail adapter needs an API key: pass apiKey or set MAIL_ADAPTER_API_KEY" },
  /** The SMTP adapter needs a host (or a nodemailer transport). */
  SMTP_HOST_REQUIRED: { message: () => "The SMTP mail adapter needs host (or transport)" },
  /** The SendGrid webhook verification key is not a base64 public key. */
  INVALID_WEBHOOK_KEY: { message: (reason: string) => `The SendGrid webhook verification key is not a usable public key: ${reason}` },
});
