import mongoose, { Schema, type Model } from "mongoose";
import type { CommsErrorClass } from "../../contracts/comms-result.js";
import { findOneOrNone } from "../rest/index.js";

/** The channels a send goes through. */
export const COMMS_CHANNELS = ["mail", "sms", "push", "verification"] as const;
export type CommsChannel = (typeof COMMS_CHANNELS)[number];

/** What a row records: a send, or a verification's start or check. */
export const COMMS_OPERATIONS = ["send", "start", "check"] as const;
export type CommsOperation = (typeof COMMS_OPERATIONS)[number];

/**
 * A row's status (docs/comms.md draws the transitions): a send ends `sent` (accepted; push: every
 * token), `partial` (push: some tokens), `failed` or `cancelled` (`beforeSend`); delivery events
 * then move `sent`/`partial` to `delivered`, and `sent`/`partial`/`delivered` to `bounced` or
 * `failed`. `opened`, `clicked`, `deferred` and `complained` are recorded in `events` only.
 */
export const COMMS_STATUSES = ["sent", "partial", "failed", "cancelled", "delivered", "bounced"] as const;
export type CommsStatus = (typeof COMMS_STATUSES)[number];

/** The literal stored instead of recipients unless `redactRecipients` is false (SPEC §2.7). */
export const REDACTED = "[redacted]";

/** One provider call of a send. */
export interface CommsAttempt {
  at: Date;
  provider: string;
  /** 1 for the first call; the inline retry of a transient failure is 2, fallbacks count on. */
  attempt: number;
  isRetry: boolean;
  outcome: "accepted" | "failed" | "partial";
  errorCode?: string;
  errorClass?: CommsErrorClass;
  providerMessageId?: string;
  /** Push: how many tokens this call carried. */
  tokens?: number;
}

/** A delivery event recorded on a row. */
export interface CommsEventRecord {
  type: string;
  at: Date;
  eventId?: string;
  errorCode?: string;
}

/** A `CommsMessage` delivery-log row (SPEC §2.7). */
export interface CommsMessageFields {
  channel: CommsChannel;
  operation: CommsOperation;
  status: CommsStatus;
  errorCode?: string;
  errorClass?: CommsErrorClass;
  /** The provider that gave the final answer. */
  provider?: string;
  providerMessageId?: string;
  /** Every provider message id of the send (one; push: one per accepted token): what delivery events match. */
  providerMessageIds?: string[];
  recipients: string[];
  /** Push: the user the notification went to (redacted like recipients). */
  userId?: string;
  attempts: CommsAttempt[];
  payload?: Record<string, unknown>;
  metadata?: { consoleUrl?: string; hookErrors?: Record<string, string>; approved?: boolean; tokens?: { accepted: number; failed: number } };
  events: CommsEventRecord[];
  created?: Date;
  updated?: Date;
}

export type CommsMessageModel = Model<CommsMessageFields>;

const attemptSchema = new Schema<CommsAttempt>(
  {
    at: { type: Date, required: true, description: "When the provider was called" },
    provider: { type: String, required: true, description: "The provider adapter's name" },
    attempt: { type: Number, required: true, description: "1 for the first call, 2 for the inline retry, then fallbacks" },
    isRetry: { type: Boolean, required: true, description: "Whether this call was the inline retry of a transient failure" },
    outcome: { type: String, enum: ["accepted", "failed", "partial"], required: true, description: "What the provider answered" },
    errorCode: { type: String, description: "The failure's code" },
    errorClass: { type: String, enum: ["permanent", "transient", "config"], description: "The failure's class" },
    providerMessageId: { type: String, description: "The provider's message id" },
    tokens: { type: Number, description: "Push: tokens in this call" },
  },
  { _id: false, strict: "throw" },
);

const eventSchema = new Schema<CommsEventRecord>(
  {
    type: { type: String, required: true, description: "delivered, bounced, failed, deferred, opened, clicked or complained" },
    at: { type: Date, required: true, description: "When the provider saw it" },
    eventId: { type: String, description: "The provider's event id (a repeat is recorded once)" },
    errorCode: { type: String, description: "The provider's reason code" },
  },
  { _id: false, strict: "throw" },
);

const schema = new Schema<CommsMessageFields>(
  {
    channel: { type: String, enum: COMMS_CHANNELS, required: true, description: "mail, sms, push or verification" },
    operation: { type: String, enum: COMMS_OPERATIONS, required: true, description: "send, or a verification's start or check" },
    status: { type: String, enum: COMMS_STATUSES, required: true, description: "sent, partial, failed, cancelled, delivered or bounced" },
    errorCode: { type: String, description: "Why the send (or a later delivery event) failed" },
    errorClass: { type: String, enum: ["permanent", "transient", "config"], description: "permanent, transient or config" },
    provider: { type: String, description: "The provider that gave the final answer" },
    providerMessageId: { type: String, description: "The provider's message id (delivery webhooks match on it)" },
    providerMessageIds: { type: [String], default: undefined, description: "Every provider message id of the send (push: one per accepted token)" },
    recipients: { type: [String], default: [], description: `Recipients, or "${REDACTED}" unless redactRecipients is false` },
    userId: { type: String, description: `Push: the user notified, or "${REDACTED}"` },
    attempts: { type: [attemptSchema], default: [], description: "Every provider call, in order" },
    payload: { type: Schema.Types.Mixed, description: "The redacted message, kept retainPayloadDays days" },
    metadata: { type: Schema.Types.Mixed, description: "consoleUrl, hookErrors (hook name → threw), approved (verification checks), tokens (push counts)" },
    events: { type: [eventSchema], default: [], description: "Delivery events recorded by recordDeliveryEvent" },
    // Set by the service itself (rows are written in batches, past mongoose's middleware).
    created: { type: Date, description: "When the send happened (set by the server)" },
    updated: { type: Date, description: "When the row last changed (set by the server)" },
  },
  { strict: "throw", minimize: true, toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(findOneOrNone);
// Two indexes besides _id, because every send writes a row: the log's order and range filter,
// and what delivery webhooks look rows up by.
schema.index({ created: -1, _id: -1 });
schema.index({ providerMessageIds: 1 }, { sparse: true });

/**
 * The `CommsMessage` model (the delivery log), on mongoose's default connection.
 *
 * @example
 * const failed = await commsMessageModel().find({ status: "failed" }).sort({ created: -1 }).limit(20);
 */
export function commsMessageModel(): CommsMessageModel {
  return (mongoose.models.CommsMessage as CommsMessageModel | undefined) ?? mongoose.model<CommsMessageFields>("CommsMessage", schema);
}
