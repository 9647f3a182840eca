import { defineErrors } from "../../kernel/errors.js";

/** Errors of the chat notifiers (codes `NOTIFIERS_*`). */
export const NotifierErrors = defineErrors("NOTIFIERS", {
  NO_WEBHOOK: { message: (service: string) => `${service}: pass webhookUrl or channel` },
  UNKNOWN_CHANNEL: {
    message: (service: string, channel: string, variable: string) => `${service}: no webhook named "${channel}" in ${variable}`,
  },
  DELIVERY_FAILED: { status: 502, message: (service: string, target: string, detail: string) => `${service}: posting to ${target} failed: ${detail}` },
});

/** Errors of incoming-webhook signature checks (codes `WEBHOOK_*`). */
export const WebhookSignatureErrors = defineErrors("WEBHOOK", {
  SECRET_MISSING: { status: 500, message: () => "WEBHOOK_SECRET is not set: incoming webhooks cannot be verified" },
  SIGNATURE_MISSING: { status: 401, message: (header: string) => `Missing webhook signature header ${header}` },
  SIGNATURE_INVALID: { status: 401, message: () => "Webhook signature does not match the payload" },
  RAW_BODY_UNAVAILABLE: {
    status: 500,
    message: () =>
      "The raw request body is not available to verify the webhook signature: the body was parsed before " +
      "the signature middleware and its bytes were not kept (see docs/notifiers-and-scripts.md)",
  },
});
