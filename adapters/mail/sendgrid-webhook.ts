import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import type { DeliveryEvent, DeliveryEventType, DeliveryWebhook, OptOutEvent, WebhookContent, WebhookRequest } from "../../contracts/delivery-webhook.js";
import { MailAdapterErrors } from "./errors.js";

const SIGNATURE = "x-twilio-email-event-webhook-signature";
const TIMESTAMP = "x-twilio-email-event-webhook-timestamp";

const EVENT_TYPES: Readonly<Record<string, DeliveryEventType>> = {
  delivered: "delivered",
  bounce: "bounced",
  blocked: "bounced",
  dropped: "failed",
  deferred: "deferred",
  open: "opened",
  click: "clicked",
  spamreport: "complained",
};
const OPT_OUTS = new Set(["unsubscribe", "group_unsubscribe", "spamreport"]);

/**
 * SendGrid's signed Event Webhook: ECDSA (P-256, SHA-256) over the timestamp header followed by
 * the raw body, checked with the verification key SendGrid shows. A timestamp outside
 * `toleranceSeconds` is refused (a replay of an old capture); events map to delivery events by
 * `sg_message_id` (its part before the first dot is the `x-message-id` the send returned), and
 * unsubscribes and spam reports to opt-outs. A delivery is known again by what was signed (the
 * timestamp and the body's bytes), not by the signature header: base64 can spell the same
 * signature several ways, and an ECDSA signature can be re-made without the key.
 *
 * @example
 * const webhook = sendGridWebhook({ provider: "sendgrid", verificationKey: process.env.SENDGRID_WEBHOOK_KEY!, toleranceSeconds: 600 });
 */
export function sendGridWebhook(options: { provider: string; verificationKey: string; toleranceSeconds: number; now?: () => Date }): DeliveryWebhook {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(options.verificationKey, "base64"), format: "der", type: "spki" });
  } catch (error) {
    throw MailAdapterErrors.INVALID_WEBHOOK_KEY(error instanceof Error ? error.message : String(error));
  }
  const now = options.now ?? (() => new Date());
  return {
    provider: options.provider,
    mediaType: "json",
    read(request: WebhookRequest): WebhookContent | undefined {
      const signature = header(request, SIGNATURE);
      const timestamp = header(request, TIMESTAMP);
      if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return undefined;
      if (Math.abs(now().getTime() / 1000 - Number(timestamp)) > options.toleranceSeconds) return undefined;
      let valid = false;
      try {
        valid = verify("sha256", Buffer.concat([Buffer.from(timestamp), request.rawBody]), key, Buffer.from(signature, "base64"));
      } catch {
        valid = false;
      }
      if (!valid || !Array.isArray(request.body)) return undefined;
      const events: DeliveryEvent[] = [];
      const optOuts: OptOutEvent[] = [];
      for (const item of request.body as unknown[]) {
        if (item === null || typeof item !== "object") continue;
        const raw = item as Record<string, unknown>;
        const at = typeof raw.timestamp === "number" ? new Date(raw.timestamp * 1000) : undefined;
        const messageId = typeof raw.sg_message_id === "string" ? raw.sg_message_id.split(".")[0]! : "";
        const type = typeof raw.event === "string" ? EVENT_TYPES[raw.event] : undefined;
        if (type && messageId) {
          const reason = typeof raw.status === "string" ? raw.status : typeof raw.type === "string" ? raw.type : undefined;
          events.push({ provider: options.provider, providerMessageId: messageId, type, ...(typeof raw.sg_event_id === "string" ? { eventId: raw.sg_event_id } : {}), ...(at ? { at } : {}), ...(reason ? { errorCode: reason } : {}) });
        }
        if (typeof raw.event === "string" && OPT_OUTS.has(raw.event) && typeof raw.email === "string") {
          optOuts.push({ provider: options.provider, channel: "mail", recipient: raw.email, reason: raw.event, ...(typeof raw.sg_event_id === "string" ? { eventId: raw.sg_event_id } : {}), ...(at ? { at } : {}) });
        }
      }
      return { replayKey: `${timestamp}:${createHash("sha256").update(request.rawBody).digest("hex")}`, events, optOuts };
    },
  };
}

function header(request: WebhookRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}
