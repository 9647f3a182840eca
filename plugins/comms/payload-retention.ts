import type { MailMessage } from "../../contracts/mailer.js";
import type { SmsMessage } from "../../contracts/sms.js";
import type { VerificationStart } from "../../contracts/verification.js";
import { REDACTED, type CommsChannel, type CommsOperation } from "./comms-message-model.js";
import type { CommsPayload, PushNotification } from "./comms-options.js";

const MAIL_FIELDS = ["to", "from", "subject", "text", "html", "replyTo", "templateId", "dynamicTemplateData"] as const;

/**
 * The part of a message the delivery log may keep (SPEC §2.7): mail keeps its addressing and
 * content fields, SMS `to` and `body`, push everything but tokens, a verification start
 * `{channel}`, a check nothing. Recipients become `[redacted]` when `redactRecipients` is on.
 *
 * @example
 * retainedPayload("sms", "send", { to: "+1415", body: "Hi" }, true); // { to: "[redacted]", body: "Hi" }
 */
export function retainedPayload(channel: CommsChannel, operation: CommsOperation, message: CommsPayload, redactRecipients: boolean): Record<string, unknown> | undefined {
  const recipient = (value: unknown) => (redactRecipients ? REDACTED : value);
  if (channel === "mail") {
    const mail = message as MailMessage;
    const kept: Record<string, unknown> = {};
    for (const field of MAIL_FIELDS) if (mail[field] !== undefined) kept[field] = mail[field];
    if (kept.to !== undefined) kept.to = recipient(kept.to);
    if (kept.replyTo !== undefined) kept.replyTo = recipient(kept.replyTo);
    return kept;
  }
  if (channel === "sms") {
    const sms = message as SmsMessage;
    return { to: recipient(sms.to), ...(sms.body !== undefined ? { body: sms.body } : {}) };
  }
  if (channel === "push") {
    const push = message as PushNotification;
    const kept: Record<string, unknown> = {};
    for (const field of ["title", "body", "data"] as const) if (push[field] !== undefined) kept[field] = push[field];
    return kept;
  }
  if (operation === "start") return { channel: (message as VerificationStart).channel };
  return undefined;
}

/**
 * The recipients a row records: the message's addresses, or `[redacted]`.
 *
 * @example
 * recipientsOf("mail", { to: ["a@x.com", "b@x.com"] }, false); // ["a@x.com", "b@x.com"]
 */
export function recipientsOf(channel: CommsChannel, message: CommsPayload, redactRecipients: boolean, userId?: string): string[] {
  if (redactRecipients) return [REDACTED];
  if (channel === "push") return userId ? [userId] : [];
  const to = (message as { to?: unknown }).to;
  const list = Array.isArray(to) ? to : [to];
  return list.filter((value): value is string => typeof value === "string");
}
