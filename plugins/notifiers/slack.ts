import { postToWebhook, type NotifyOptions, type NotifyResult } from "./post-to-webhook.js";

/** A Slack Block Kit block (`{type: "section", text: {...}}`, `{type: "divider"}`, ...). */
export type SlackBlock = { type: string } & Record<string, unknown>;

export interface SlackNotifyOptions extends NotifyOptions {
  /** Block Kit blocks; `message` stays the notification fallback text. */
  blocks?: SlackBlock[];
  /** Legacy attachments (colour bars). */
  attachments?: Array<Record<string, unknown>>;
  /** Reply in a thread. */
  threadTs?: string;
  username?: string;
  iconEmoji?: string;
  iconUrl?: string;
}

/**
 * Posts a message to a Slack incoming webhook — `webhookUrl`, or `channel` from `SLACK_WEBHOOKS`.
 * Failures are logged and returned as `{delivered: false}`; pass `throwOnError` to get
 * `NOTIFIERS_DELIVERY_FAILED` instead.
 *
 * @example
 * await sendToSlack({
 *   channel: "alerts",
 *   message: "Nightly import failed",
 *   blocks: [{ type: "section", text: { type: "mrkdwn", text: "*Nightly import failed*\n3 files rejected" } }],
 * });
 */
export function sendToSlack(options: SlackNotifyOptions): Promise<NotifyResult> {
  return postToWebhook("slack", options, () => ({
    payload: compact({
      text: options.message,
      blocks: options.blocks,
      attachments: options.attachments,
      thread_ts: options.threadTs,
      username: options.username,
      icon_emoji: options.iconEmoji,
      icon_url: options.iconUrl,
    }),
  }));
}

function compact(payload: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(payload).filter(([, value]) => value !== undefined));
}
