/** What a provider reports about a message after it was accepted (SPEC §6.3). */
export type DeliveryEventType = "delivered" | "bounced" | "failed" | "deferred" | "opened" | "clicked" | "complained";

/**
 * A delivery event, matched to a log row by the provider's message id.
 *
 * @example
 * await comms.recordDeliveryEvent({ provider: "sendgrid", providerMessageId: "abc", type: "delivered" });
 */
export interface DeliveryEvent {
  readonly provider: string;
  readonly providerMessageId: string;
  readonly type: DeliveryEventType;
  /** The provider's id of the event itself: a repeated id is recorded once. */
  readonly eventId?: string;
  readonly at?: Date;
  /** The provider's error code (a bounce reason code, a carrier code). */
  readonly errorCode?: string;
}

/**
 * A recipient who asked to receive nothing more (an SMS STOP, an unsubscribe, a spam report).
 *
 * @example
 * await comms.recordOptOut({ provider: "twilio", channel: "sms", recipient: "+14155550100" });
 */
export interface OptOutEvent {
  readonly provider: string;
  readonly channel: "mail" | "sms";
  readonly recipient: string;
  readonly at?: Date;
  /** The provider's reason (`STOP`, `unsubscribe`, `spamreport`). */
  readonly reason?: string;
  /** The provider's id of the event: a delivery webhook passes a repeated id to `onOptOut` once. */
  readonly eventId?: string;
}

/** The parts of an incoming webhook request a provider needs to check and read it. */
export interface WebhookRequest {
  /** The exact body bytes (signatures are computed over them). */
  readonly rawBody: Buffer;
  /** The parsed body (JSON, or the form fields). */
  readonly body: unknown;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The full URL the provider posted to, as it sees it (some signatures cover it). */
  readonly url: string;
}

/** A verified webhook's content; `replayKey` is unique per delivery of the webhook. */
export interface WebhookContent {
  readonly replayKey: string;
  readonly events: readonly DeliveryEvent[];
  readonly optOuts: readonly OptOutEvent[];
}

/**
 * A provider's delivery webhook. `read` checks the provider's signature and returns the events,
 * or `undefined` when the signature (or its freshness) does not hold: the plugin answers 401 and
 * records nothing.
 *
 * @example
 * const webhook: DeliveryWebhook = { provider: "acme", mediaType: "json", read: (req) => verify(req) ? parse(req) : undefined };
 */
export interface DeliveryWebhook {
  /** The route segment: `{basePath}/webhooks/<provider>`. */
  readonly provider: string;
  readonly mediaType: "json" | "form";
  read(request: WebhookRequest): WebhookContent | undefined;
}
