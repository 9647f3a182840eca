import sendgridMail from "@sendgrid/mail";
import { acceptedResult, classifyHttpStatus, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { DeliveryWebhook } from "../../contracts/delivery-webhook.js";
import type { Mailer, MailMessage } from "../../contracts/mailer.js";
import type { Environment } from "../../kernel/environment.js";
import { MailAdapterErrors } from "./errors.js";
import { sendGridWebhook } from "./sendgrid-webhook.js";

// The package's default export is a shared singleton; each adapter makes its own service (its
// own key) from the class the package attaches to it.
type MailService = typeof sendgridMail;
const MailService = (sendgridMail as unknown as { MailService: new () => MailService }).MailService;

/** Options of `SendGridMailer` (SPEC §2.7). */
export interface SendGridMailerOptions {
  /** Default: `MAIL_ADAPTER_API_KEY`; required. */
  apiKey?: string;
  /** The sender when a mail names none. */
  fromEmail?: string;
  fromName?: string;
  /** SendGrid validates but delivers nothing (default: true when `NODE_ENV` is `test`). */
  sandboxMode?: boolean;
  /** The Event Webhook's verification key (base64, from SendGrid's settings): mounts the signed webhook. */
  webhookVerificationKey?: string;
  /** How old a signed webhook may be (default 600 s): older ones are refused as replays. */
  webhookToleranceSeconds?: number;
  /** How long a send waits for SendGrid's answer (default 30 000 ms; the library itself waits forever): then a transient `network` failure. */
  timeoutMs?: number;
  /** Where `MAIL_ADAPTER_API_KEY` and `NODE_ENV` are read (default `process.env`). */
  env?: Environment;
  /** The provider name in the delivery log (default `sendgrid`). */
  name?: string;
}

/** SendGrid's error texts that mean "this recipient address is wrong". */
const RECIPIENT_PROBLEM = /valid (email )?address|does not contain a valid|invalid email|to\.email|personalizations\.\d+\.to/i;
/** Error texts that mean our sender or account set-up is wrong, whatever the status. */
const CONFIG_PROBLEM = /sender identity|from address|from\.email|permission|authorization|api key/i;

/**
 * The SendGrid mail adapter, on the official `@sendgrid/mail` library (its own client per adapter,
 * so two adapters may hold two keys). Failures are classified (401/403 and sender problems
 * config, 429/5xx/network transient, bad recipients permanent), never thrown; an accepted send
 * carries SendGrid's `x-message-id` and a deep link to its activity search as `consoleUrl`.
 *
 * @example
 * commsPlugin({ mail: new SendGridMailer({ fromEmail: "team@example.com", fromName: "Team" }) });
 */
export class SendGridMailer implements Mailer {
  readonly name: string;
  readonly webhook?: DeliveryWebhook;
  private readonly client: MailService;
  private readonly fromEmail?: string;
  private readonly fromName?: string;
  private readonly sandboxMode: boolean;

  constructor(options: SendGridMailerOptions = {}) {
    const env = options.env ?? process.env;
    const apiKey = options.apiKey ?? env.MAIL_ADAPTER_API_KEY;
    if (typeof apiKey !== "string" || apiKey.trim() === "") throw MailAdapterErrors.API_KEY_REQUIRED();
    this.name = options.name ?? "sendgrid";
    this.client = new MailService();
    this.client.setApiKey(apiKey.trim());
    this.client.setTimeout(options.timeoutMs ?? 30_000);
    this.fromEmail = options.fromEmail;
    this.fromName = options.fromName;
    this.sandboxMode = options.sandboxMode ?? env.NODE_ENV === "test";
    if (options.webhookVerificationKey) {
      this.webhook = sendGridWebhook({ provider: this.name, verificationKey: options.webhookVerificationKey, toleranceSeconds: options.webhookToleranceSeconds ?? 600 });
    }
  }

  async sendMail(message: MailMessage): Promise<SendResult> {
    const to = typeof message?.to === "string" ? [message.to] : Array.isArray(message?.to) ? message.to : [];
    if (to.length === 0) return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
    const from = message.from ?? this.fromEmail;
    if (!from) return failedResult(SEND_ERROR_CODES.misconfigured, "config");
    const content = [
      ...(message.text !== undefined ? [{ type: "text/plain", value: message.text }] : []),
      ...(message.html !== undefined ? [{ type: "text/html", value: message.html }] : []),
    ];
    try {
      const data = {
        to: [...to],
        from: message.from ? message.from : { email: from, ...(this.fromName ? { name: this.fromName } : {}) },
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        ...(message.subject !== undefined ? { subject: message.subject } : {}),
        ...(message.templateId ? { templateId: message.templateId, dynamicTemplateData: { ...message.dynamicTemplateData } } : {}),
        ...(content.length > 0 ? { content } : {}),
        mailSettings: { sandboxMode: { enable: this.sandboxMode } },
      };
      // SendGrid itself refuses a mail with neither content nor template (a permanent 400).
      const [response] = await this.client.send(data as Parameters<MailService["send"]>[0]);
      const header = response?.headers?.["x-message-id"];
      const providerMessageId = typeof header === "string" && header !== "" ? header : undefined;
      if (response?.statusCode === undefined || response.statusCode < 200 || response.statusCode >= 300) return failedResult(SEND_ERROR_CODES.malformedResponse, "transient");
      return acceptedResult(providerMessageId ? { providerMessageId, consoleUrl: sendGridActivityUrl(providerMessageId) } : {});
    } catch (error) {
      return classifySendGridError(error);
    }
  }
}

/** The SendGrid console's activity search for one message. */
export function sendGridActivityUrl(messageId: string): string {
  return `https://app.sendgrid.com/email_activity?search=${encodeURIComponent(messageId)}`;
}

/**
 * What a SendGrid failure means for a send: the `ResponseError`'s status and error texts, or a
 * network failure (no status).
 *
 * @example
 * classifySendGridError({ code: 429 }); // { accepted: false, errorCode: "rate-limited", errorClass: "transient", ... }
 */
export function classifySendGridError(error: unknown): SendResult {
  const status = typeof (error as { code?: unknown })?.code === "number" ? ((error as { code: number }).code) : undefined;
  const body = (error as { response?: { body?: unknown } })?.response?.body;
  const messages = Array.isArray((body as { errors?: unknown })?.errors)
    ? ((body as { errors: Array<{ message?: unknown; field?: unknown }> }).errors.map((item) => `${String(item?.field ?? "")} ${String(item?.message ?? "")}`).join(" "))
    : "";
  if (status === undefined) return failedResult(SEND_ERROR_CODES.network, "transient");
  if (status < 500 && status !== 429 && CONFIG_PROBLEM.test(messages)) return failedResult(SEND_ERROR_CODES.misconfigured, "config");
  if (status === 400 && RECIPIENT_PROBLEM.test(messages)) return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
  const [errorCode, errorClass] = classifyHttpStatus(status);
  return failedResult(errorCode, errorClass);
}
