import type { SendResult } from "../../contracts/comms-result.js";
import type { DeliveryEvent, OptOutEvent } from "../../contracts/delivery-webhook.js";
import type { Mailer, MailMessage } from "../../contracts/mailer.js";
import type { PushSender } from "../../contracts/push.js";
import type { SmsMessage, SmsSender } from "../../contracts/sms.js";
import type { VerificationCheck, VerificationSender, VerificationStart } from "../../contracts/verification.js";
import type { CommsChannel, CommsOperation } from "./comms-message-model.js";

/** A push notification as the service takes it: the user's active tokens are the targets. */
export interface PushNotification {
  readonly title?: string;
  readonly body?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** What a hook is told about the message being sent (SPEC §2.7). */
export interface CommsHookContext {
  readonly channel: CommsChannel;
  readonly operation: CommsOperation;
  /** The delivery-log row's id (also when `logMessages` is false, so hooks can correlate). */
  readonly messageId: string;
  /** 1 for the first call, 2 for the inline retry, then one more per fallback provider. */
  readonly attempt: number;
  readonly isRetry: boolean;
  /** The message as it will be (or was) sent; `beforeSend` may replace it. */
  readonly message: CommsPayload;
  /** Push: the user notified. */
  readonly userId?: string;
}

/** Every message shape the service sends. */
export type CommsPayload = MailMessage | SmsMessage | PushNotification | VerificationStart | VerificationCheck;

/** What `beforeSend` may return: nothing (send as is), a replacement message, or a cancel. */
export interface BeforeSendDecision {
  readonly cancel?: boolean;
  readonly message?: CommsPayload;
}

/** A hook's return value may be a promise; its value is ignored except for `beforeSend`'s. */
type Hook<Args extends unknown[]> = (...args: Args) => unknown;

/**
 * Options of `commsPlugin` (SPEC §2.7). Each channel takes one provider or an ordered list: a
 * transient (after its retry) or config failure of one provider tries the next.
 *
 * @example
 * const options: CommsAppOptions = {
 *   mail: [new SendGridMailer({ fromEmail: "team@example.com" }), new SmtpMailer({ host: "smtp.example.com" })],
 *   defaultFrom: "team@example.com",
 *   retainPayloadDays: 7,
 * };
 */
export interface CommsAppOptions {
  /** Where the routes live (default `/comms`). */
  basePath?: string;
  /** Before each send (not before retries): return `{cancel: true}` to skip it or `{message}` to replace it. */
  beforeSend?: (context: CommsHookContext) => BeforeSendDecision | undefined | void | Promise<BeforeSendDecision | undefined | void>;
  /** The mail sender when a message names none. */
  defaultFrom?: string;
  /**
   * Active push tokens a user may have (default 20): registering one more deactivates the
   * least recently registered, so a user's sends reach a bounded number of devices.
   */
  maxPushTokensPerUser?: number;
  /** Write a `CommsMessage` row per send (default true). */
  logMessages?: boolean;
  mail?: Mailer | readonly Mailer[];
  sms?: SmsSender | readonly SmsSender[];
  push?: PushSender | readonly PushSender[];
  verification?: VerificationSender | readonly VerificationSender[];
  /** After `recordDeliveryEvent()` matched a row. */
  onDeliveryEvent?: Hook<[event: DeliveryEvent, context: { readonly messageId: string; readonly status: string }]>;
  onOptOut?: Hook<[event: OptOutEvent]>;
  /** After every refused send (cancels excluded). */
  onError?: Hook<[context: CommsHookContext, result: SendResult]>;
  /** Once before the inline retry of a transient failure (`context.attempt` is 2). */
  onRetry?: Hook<[context: CommsHookContext, result: SendResult]>;
  /** After every send outcome: accepted, refused or cancelled. */
  onSend?: Hook<[context: CommsHookContext, result: SendResult]>;
  /** Returns the payload to store (after the channel's retention rules applied); a throw stores none. */
  redactPayload?: (context: CommsHookContext, payload: Record<string, unknown>) => Record<string, unknown> | undefined;
  /** Store `[redacted]` instead of recipients (default true). */
  redactRecipients?: boolean;
  /** Days a payload is kept (default 30); 0 stores none. */
  retainPayloadDays?: number;
  /** The retention job's five-field cron schedule (default `COMMS_RETENTION_CRON`, else daily at 03:17). */
  retentionSchedule?: string;
  /** The clock sends and retention read (tests). */
  now?: () => Date;
}
