import { defineErrors } from "../../kernel/errors.js";

/**
 * The comms plugin's errors. Sends never throw them (a send's outcome is its result); they
 * answer the plugin's routes and report set-up mistakes.
 *
 * @example
 * CommsErrors.CHANNEL_NOT_CONFIGURED({ detail: "No push provider" }).status; // 501
 */
export const CommsErrors = defineErrors("COMMS", {
  /** The service was asked for before the plugin started (or after it stopped). */
  NOT_STARTED: { message: () => "The comms plugin has not started: call getCommsService() once the app started" },
  INVALID_BASE_PATH: { message: (path: string) => `basePath must start with "/" and not end with one, got "${path}"` },
  INVALID_RETENTION: { message: (days: unknown) => `retainPayloadDays must be a whole number of days, 0 or more, got ${String(days)}` },
  INVALID_TOKEN_LIMIT: { message: (limit: unknown) => `maxPushTokensPerUser must be a whole number, 1 or more, got ${String(limit)}` },
  /** Two providers of one channel share a name, so the delivery log could not tell them apart. */
  DUPLICATE_PROVIDER: { message: (channel: string, name: string) => `Two ${channel} providers are named "${name}": give each a distinct name` },
  /** Two providers' delivery webhooks would share one route. */
  DUPLICATE_WEBHOOK: {
    message: (webhook: string, first: string, second: string) =>
      `Providers "${first}" and "${second}" both have a delivery webhook named "${webhook}" (one route, {basePath}/webhooks/${webhook}): give each webhook its own provider name, usually its adapter's name`,
  },
  /** Production, and the channel has no provider (SPEC §7). */
  CHANNEL_NOT_CONFIGURED: { status: 501, title: "Comms channel not configured" },
  /** An active push token belongs to another user (SPEC §3.3). */
  TOKEN_CLAIMED: { status: 409, title: "Push token registered to another user" },
  /** A push token the configured provider for its kind would not send to (`PushSender.validateToken`). */
  PUSH_TOKEN_INVALID: { status: 400, title: "Push token invalid" },
  /** A delivery webhook whose signature (or timestamp) does not check out. */
  WEBHOOK_SIGNATURE_INVALID: { status: 401, title: "Webhook signature invalid" },
  /** A delivery webhook delivered a second time. */
  WEBHOOK_REPLAYED: { status: 409, title: "Webhook already received" },
  /** A delivery webhook's events could not be written (the database failed): the provider should deliver it again. */
  WEBHOOK_NOT_RECORDED: { status: 503, title: "Webhook not recorded" },
});
