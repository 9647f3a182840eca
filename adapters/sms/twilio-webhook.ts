import { createHash } from "node:crypto";
import twilio from "twilio";
import type { DeliveryEvent, DeliveryWebhook, OptOutEvent, WebhookRequest } from "../../contracts/delivery-webhook.js";

/** Twilio message statuses that are delivery events (queued, sending and sent are not news). */
const STATUS_EVENTS: Readonly<Record<string, DeliveryEvent["type"]>> = { delivered: "delivered", undelivered: "failed", failed: "failed", read: "opened" };

/**
 * Twilio's status callback (and incoming-message webhook, for STOP opt-outs): the
 * `X-Twilio-Signature` is checked with the `twilio` library against the configured public URL
 * and the form fields. Twilio signs no timestamp, so a delivery is known again by what was signed
 * — the URL and the fields, in any order — while its receipt is kept; not by the signature header
 * (base64 spells it several ways) nor the unsigned idempotency token.
 *
 * @example
 * const webhook = twilioStatusWebhook({ provider: "twilio", authToken, url: "https://api.example.com/comms/webhooks/twilio" });
 */
export function twilioStatusWebhook(options: { provider: string; authToken: string; url: string }): DeliveryWebhook {
  return {
    provider: options.provider,
    mediaType: "form",
    read(request: WebhookRequest) {
      const signature = request.headers["x-twilio-signature"];
      const body = request.body;
      if (typeof signature !== "string" || signature === "" || body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
      const params = Object.fromEntries(Object.entries(body as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
      if (Object.keys(params).length !== Object.keys(body as object).length) return undefined;
      if (!twilio.validateRequest(options.authToken, signature, options.url, params)) return undefined;
      const events: DeliveryEvent[] = [];
      const optOuts: OptOutEvent[] = [];
      const sid = params.MessageSid ?? params.SmsSid;
      const type = STATUS_EVENTS[params.MessageStatus ?? ""];
      if (sid && type) {
        events.push({ provider: options.provider, providerMessageId: sid, type, eventId: `${sid}:${params.MessageStatus}`, ...(params.ErrorCode ? { errorCode: params.ErrorCode } : {}) });
      }
      // The incoming STOP message's SID names the event, however often Twilio posts it.
      if (params.OptOutType === "STOP" && params.From) optOuts.push({ provider: options.provider, channel: "sms", recipient: params.From, reason: "STOP", ...(sid ? { eventId: `${sid}:STOP` } : {}) });
      const signed = JSON.stringify([options.url, Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
      return { replayKey: createHash("sha256").update(signed).digest("hex"), events, optOuts };
    },
  };
}
