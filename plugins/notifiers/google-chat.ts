import { postToWebhook, type NotifyOptions, type NotifyResult } from "./post-to-webhook.js";

/** A Google Chat card section: `{header?, widgets: [{textParagraph: {text}}, {decoratedText: {...}}, ...]}`. */
export type GoogleChatSection = { header?: string; widgets: Array<Record<string, unknown>> } & Record<string, unknown>;

export interface GoogleChatNotifyOptions extends NotifyOptions {
  /** Card sections; with them (or a title) the message carries one card v2. */
  sections?: GoogleChatSection[];
  /** Card header title and subtitle. */
  title?: string;
  subtitle?: string;
  /** Full `cardsV2` entries, when you need more than one card. */
  cardsV2?: Array<Record<string, unknown>>;
  /** Messages with the same key go to the same thread. */
  threadKey?: string;
}

/**
 * Posts a message to a Google Chat space webhook — `webhookUrl`, or `channel` from
 * `GOOGLE_CHAT_WEBHOOKS`. `title`/`subtitle`/`sections` build a card; `threadKey` threads replies.
 * Failures are logged and returned; they throw only with `throwOnError`.
 *
 * @example
 * await sendToGoogleChat({
 *   channel: "ops",
 *   message: "Deploy finished",
 *   title: "api v57.2.0",
 *   sections: [{ widgets: [{ textParagraph: { text: "All health checks green" } }] }],
 * });
 */
export function sendToGoogleChat(options: GoogleChatNotifyOptions): Promise<NotifyResult> {
  return postToWebhook("googleChat", options, (url) => {
    if (options.threadKey) {
      url.searchParams.set("threadKey", options.threadKey);
      url.searchParams.set("messageReplyOption", "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
    }
    const cards = [...(options.cardsV2 ?? [])];
    if (options.sections || options.title) {
      const header = options.title ? { title: options.title, ...(options.subtitle ? { subtitle: options.subtitle } : {}) } : undefined;
      cards.unshift({ cardId: "svc-notification", card: { ...(header ? { header } : {}), sections: options.sections ?? [] } });
    }
    return { payload: cards.length > 0 ? { text: options.message, cardsV2: cards } : { text: options.message } };
  });
}
