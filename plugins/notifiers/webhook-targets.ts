import { readEnvironment, urlMap, type Environment } from "../../kernel/environment.js";
import { NotifierErrors } from "./errors.js";

/** The chat services with a notifier, and the variable holding each one's named webhooks. */
export const CHAT_WEBHOOK_VARIABLES = {
  slack: "SLACK_WEBHOOKS",
  googleChat: "GOOGLE_CHAT_WEBHOOKS",
  zoom: "ZOOM_WEBHOOKS",
} as const;

export type ChatService = keyof typeof CHAT_WEBHOOK_VARIABLES;

/** Where a notification goes: an explicit webhook URL, or a channel name from the service's variable. */
export interface WebhookTarget {
  webhookUrl?: string;
  /** A name from `SLACK_WEBHOOKS` / `GOOGLE_CHAT_WEBHOOKS` / `ZOOM_WEBHOOKS` (JSON maps of name → URL). */
  channel?: string;
  /** Environment to read the maps from (default `process.env`). */
  env?: Environment;
}

/**
 * The webhook URL for a target: `webhookUrl` if given, else the `channel` entry of the service's
 * variable. Throws `NOTIFIERS_NO_WEBHOOK`, `NOTIFIERS_UNKNOWN_CHANNEL`, or
 * `CONFIG_INVALID_ENVIRONMENT` when the variable is not a JSON map of URLs.
 *
 * @example
 * // SLACK_WEBHOOKS={"alerts":"https://hooks.slack.com/services/T/B/X"}
 * resolveWebhookUrl("slack", { channel: "alerts" });
 */
export function resolveWebhookUrl(service: ChatService, target: WebhookTarget): string {
  if (target.webhookUrl) return target.webhookUrl;
  if (!target.channel) throw NotifierErrors.NO_WEBHOOK(service);
  const variable = CHAT_WEBHOOK_VARIABLES[service];
  const environment = target.env ?? process.env;
  const map = readEnvironment({ [variable]: environment[variable] }, { [variable]: urlMap({ default: {} }) })[variable] as Record<string, string>;
  const url = Object.hasOwn(map, target.channel) ? map[target.channel] : undefined;
  if (!url) throw NotifierErrors.UNKNOWN_CHANNEL(service, target.channel, variable);
  return url;
}
