import { createHash } from "node:crypto";
import express, { type RequestHandler, type Router } from "express";
import type { Model } from "mongoose";
import { isDuplicateKeyError } from "../../contracts/database.js";
import type { DeliveryWebhook } from "../../contracts/delivery-webhook.js";
import { OMIT_BODY_FROM_LOG } from "../../contracts/http.js";
import { captureRawBody } from "../../contracts/raw-body.js";
import { requireJsonBody } from "../validation/index.js";
import { CommsErrors } from "./errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { CommsService } from "./comms-service.js";
import type { WebhookReceiptFields } from "./webhook-receipt-model.js";

/** The path of a provider's webhook. */
export function webhookPath(basePath: string, webhook: DeliveryWebhook): string {
  return `${basePath}/webhooks/${webhook.provider}`;
}

/**
 * Mounts `POST {basePath}/webhooks/<provider>` for each provider webhook: the provider checks its
 * signature (401 `COMMS_WEBHOOK_SIGNATURE_INVALID` otherwise, nothing recorded); a delivery seen
 * before is 409 `COMMS_WEBHOOK_REPLAYED`; each event goes to `recordDeliveryEvent` (an unknown
 * message id is counted as ignored) and each opt-out to `recordOptOut`, once per event id. A
 * delivery whose events could not be written (the database failed) is 503
 * `COMMS_WEBHOOK_NOT_RECORDED` and not kept as received, so the provider's retry is recorded.
 *
 * @example
 * mountWebhookRoutes(router, { basePath: "/comms", webhooks: [sendgrid.webhook], service, receipts: webhookReceiptModel(), now, providerNames: new Set(["sendgrid"]), logger });
 */
export function mountWebhookRoutes(
  router: Router,
  options: {
    basePath: string;
    webhooks: readonly DeliveryWebhook[];
    service: () => CommsService;
    receipts: Model<WebhookReceiptFields>;
    now: () => Date;
    /** The configured providers' names: what delivery-log rows, and so events, name. */
    providerNames: ReadonlySet<string>;
    logger: SvcLogger;
  },
): void {
  // An adapter whose events name another provider than its own `name` matches no row: its events
  // are all "ignored", which an adapter author cannot tell from unknown messages. Said once a name.
  const strangers = new Set<string>();
  const checkProvider = (webhook: DeliveryWebhook, provider: string): void => {
    if (options.providerNames.has(provider) || strangers.has(provider)) return;
    strangers.add(provider);
    options.logger.warn(
      `Comms webhook ${webhook.provider}: its events name provider "${provider}", which no configured provider is called, so they match no delivery-log row (rows name the adapter's name: ${[...options.providerNames].join(", ")})`,
      { webhook: webhook.provider, provider },
    );
  };
  /** Stores a receipt for `what` of `provider`; its key, or undefined when one was there already. */
  const receive = async (provider: string, what: string): Promise<string | undefined> => {
    const key = createHash("sha256").update(`${provider}\u0000${what}`).digest("hex");
    try {
      await options.receipts.create({ key, provider, created: options.now() });
      return key;
    } catch (error) {
      if (isDuplicateKeyError(error)) return undefined;
      throw error;
    }
  };
  for (const webhook of options.webhooks) {
    const handle: RequestHandler = async (req, res) => {
      // A JSON webhook sent as another type was never read: 415 says so, where the signature
      // check of an empty body would answer a misleading 401.
      if (webhook.mediaType === "json") requireJsonBody(req);
      const rawBody = req.rawBody ?? Buffer.alloc(0);
      const content = webhook.read({
        rawBody,
        body: req.body,
        headers: req.headers,
        url: `${req.protocol}://${req.get("host") ?? "localhost"}${req.originalUrl}`,
      });
      if (!content) throw CommsErrors.WEBHOOK_SIGNATURE_INVALID({ detail: `The ${webhook.provider} signature does not match this body` });
      const receipt = await receive(webhook.provider, content.replayKey);
      if (!receipt) throw CommsErrors.WEBHOOK_REPLAYED({ detail: "This webhook delivery was already recorded" });
      const service = options.service();
      let recorded = 0;
      let failed = 0;
      for (const event of content.events) {
        checkProvider(webhook, event.provider);
        const outcome = await service.recordDeliveryEvent(event);
        if (outcome.recorded) recorded++;
        if (outcome.failed) failed++;
      }
      if (failed > 0) {
        // Not received after all: the provider retries a 5xx, and the retry must not be a replay.
        // Events recorded before the failure are recognised again by their event ids.
        await options.receipts.deleteOne({ key: receipt });
        throw CommsErrors.WEBHOOK_NOT_RECORDED({ detail: `${failed} of ${content.events.length} event(s) could not be written; deliver the webhook again` });
      }
      // A provider's retry is signed anew (SendGrid: a new timestamp), so it is no replay; its
      // opt-outs are recognised by event id, like its delivery events, and reported once.
      let optOuts = 0;
      for (const optOut of content.optOuts) {
        if (typeof optOut.eventId === "string" && !(await receive(webhook.provider, `opt-out\u0000${optOut.eventId}`))) continue;
        await service.recordOptOut(optOut);
        optOuts++;
      }
      res.json({ data: { recorded, ignored: content.events.length - recorded, optOuts } });
    };
    const parsers: RequestHandler[] = webhook.mediaType === "form" ? [express.urlencoded({ extended: false, limit: "1mb", verify: captureRawBody })] : [];
    router.post(webhookPath(options.basePath, webhook), omitBodyFromLog, ...parsers, handle);
  }
}

/** Delivery events name recipients: the request line is logged without them, whatever `redactRecipients` says. */
const omitBodyFromLog: RequestHandler = (_req, res, next) => {
  res.locals[OMIT_BODY_FROM_LOG] = true;
  next();
};
