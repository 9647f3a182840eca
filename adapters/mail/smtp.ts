import { randomUUID } from "node:crypto";
import nodemailer, { type Transporter } from "nodemailer";
import { acceptedResult, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { Mailer, MailMessage } from "../../contracts/mailer.js";
import { MailAdapterErrors } from "./errors.js";

/** Options of `SmtpMailer`. */
export interface SmtpMailerOptions {
  host: string;
  /** Default 587 (465 when `secure`). */
  port?: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it. */
  secure?: boolean;
  auth?: { user: string; pass: string };
  /** The sender when a mail names none. */
  fromEmail?: string;
  fromName?: string;
  /** Refuse to send unless the connection is encrypted (default false). */
  requireTLS?: boolean;
  /** Give up on a silent server after this long (default 30 s). */
  timeoutMs?: number;
  /** The provider name in the delivery log (default `smtp`). */
  name?: string;
}

/** Connection-level failures worth another try. */
const NETWORK_CODES = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ECONNRESET", "ECONNREFUSED", "ETLS", "ESTREAM"]);

/**
 * The SMTP mail adapter, on `nodemailer` (one pooled-less transport per adapter). SMTP replies are
 * classified by their code: 4xx transient, 535 and other authentication failures config,
 * 550/551/553 permanent bad recipients, 552/554 permanent refusals of the message; connection
 * failures transient; an answer that is not SMTP is a transient `malformed-response`.
 *
 * @example
 * commsPlugin({ mail: new SmtpMailer({ host: "smtp.example.com", auth: { user, pass }, fromEmail: "team@example.com" }) });
 */
export class SmtpMailer implements Mailer {
  readonly name: string;
  private readonly transport: Transporter;
  private readonly from?: string;

  constructor(options: SmtpMailerOptions) {
    if (!options?.host) throw MailAdapterErrors.SMTP_HOST_REQUIRED();
    this.name = options.name ?? "smtp";
    const timeout = options.timeoutMs ?? 30_000;
    this.transport = nodemailer.createTransport({
      host: options.host,
      port: options.port ?? (options.secure ? 465 : 587),
      secure: options.secure ?? false,
      ...(options.auth ? { auth: options.auth } : {}),
      requireTLS: options.requireTLS ?? false,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    this.from = options.fromEmail ? (options.fromName ? `"${options.fromName.replace(/"/g, "")}" <${options.fromEmail}>` : options.fromEmail) : undefined;
  }

  async sendMail(message: MailMessage): Promise<SendResult> {
    const to = typeof message?.to === "string" ? [message.to] : Array.isArray(message?.to) ? [...message.to] : [];
    if (to.length === 0) return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
    const from = message.from ?? this.from;
    if (!from) return failedResult(SEND_ERROR_CODES.misconfigured, "config");
    try {
      const info = (await this.transport.sendMail({
        from,
        to,
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        subject: message.subject ?? "",
        ...(message.text !== undefined ? { text: message.text } : {}),
        ...(message.html !== undefined ? { html: message.html } : {}),
        // A Message-ID of our own, so the log can name the mail even if the server echoes none.
        messageId: `<${randomUUID()}@svc.comms>`,
      })) as { messageId?: string; accepted?: unknown[] };
      if (!Array.isArray(info?.accepted) || info.accepted.length === 0) return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
      return acceptedResult(typeof info.messageId === "string" ? { providerMessageId: info.messageId } : {});
    } catch (error) {
      return classifySmtpError(error);
    }
  }
}

/**
 * What an SMTP failure means for a send.
 *
 * @example
 * classifySmtpError({ responseCode: 451 }); // transient
 */
export function classifySmtpError(error: unknown): SendResult {
  const code = (error as { code?: unknown })?.code;
  const reply = (error as { responseCode?: unknown })?.responseCode;
  if (code === "EAUTH" || reply === 530 || reply === 535 || reply === 534) return failedResult(SEND_ERROR_CODES.unauthorized, "config");
  if (typeof reply === "number") {
    if (reply >= 400 && reply < 500) return failedResult(SEND_ERROR_CODES.providerUnavailable, "transient");
    if (reply === 550 || reply === 551 || reply === 553 || reply === 501) return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
    if (reply >= 500) return failedResult(SEND_ERROR_CODES.invalidMessage, "permanent");
  }
  if (code === "EPROTOCOL") return failedResult(SEND_ERROR_CODES.malformedResponse, "transient");
  if (code === "EENVELOPE") return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
  if (typeof code === "string" && NETWORK_CODES.has(code)) return failedResult(SEND_ERROR_CODES.network, "transient");
  return failedResult(SEND_ERROR_CODES.providerThrow, "transient");
}
