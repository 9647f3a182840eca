import type { Environment } from "../../kernel/environment.js";
import { NotifierErrors } from "./errors.js";
import { CHAT_WEBHOOK_VARIABLES, notifiersEnvironment, type ChatService } from "./notifiers-environment.js";

/** Where a notification goes: an explicit webhook URL, or a channel name from the service's variable. */
export interface WebhookTarget {
  webhookUrl?: string;
  /** A name from `SLACK_WEBHOOKS` / `GOOGLE_CHAT_WEBHOOKS` / `ZOOM_WEBHOOKS` (JSON maps of name → URL). */
  channel?: string;
  /**
   * Environment to read the maps from. Inside an app pass `ctx.config.env` (or use `NOTIFIERS`,
   * which does); the default is `process.env`, read once.
   */
  env?: Environment;
}

/**
 * The webhook URL for a target: `webhookUrl` if given, else the `channel` entry of the service's
 * variable. Throws `NOTIFIERS_NO_WEBHOOK`, `NOTIFIERS_UNKNOWN_CHANNEL`, or
 * `CONFIG_INVALID_ENVIRONMENT` when a webhook variable is not a JSON map of URLs.
 *
 * @example
 * // SLACK_WEBHOOKS={"alerts":"https://hooks.slack.com/services/T/B/X"}
 * resolveWebhookUrl("slack", { channel: "alerts" });
 */
export function resolveWebhookUrl(service: ChatService, target: WebhookTarget): string {
  if (target.webhookUrl) return target.webhookUrl;
  if (!target.channel) throw NotifierErrors.NO_WEBHOOK(service);
  const map = notifiersEnvironment(target.env).webhooks[service];
  const url = Object.hasOwn(map, target.channel) ? map[target.channel] : undefined;
  if (!url) throw NotifierErrors.UNKNOWN_CHANNEL(service, target.channel, CHAT_WEBHOOK_VARIABLES[service]);
  return url;
}
