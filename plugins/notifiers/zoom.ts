import { postToWebhook, type NotifyOptions, type NotifyResult } from "./post-to-webhook.js";

/** A Zoom message body item: `{type: "message", text}`, `{type: "fields", items: [{key, value}]}`, ... */
export type ZoomBodyItem = { type: string } & Record<string, unknown>;

export interface ZoomNotifyOptions extends NotifyOptions {
  /** The verification token Zoom shows for the connection; sent as `Authorization`. */
  verificationToken?: string;
  /** Bold heading of the message (default: the message itself). */
  title?: string;
  subtitle?: string;
  /** Extra body items after the message text. */
  sections?: ZoomBodyItem[];
}

/**
 * Posts a message to a Zoom Team Chat incoming webhook — `webhookUrl`, or `channel` from
 * `ZOOM_WEBHOOKS` — in Zoom's full message format (`?format=full`). Failures are logged and
 * returned; they throw only with `throwOnError`.
 *
 * @example
 * await sendToZoom({
 *   channel: "support",
 *   verificationToken: process.env.ZOOM_VERIFICATION_TOKEN,
 *   title: "New ticket",
 *   message: "Customer cannot log in",
 *   sections: [{ type: "fields", items: [{ key: "Priority", value: "High" }] }],
 * });
 */
export function sendToZoom(options: ZoomNotifyOptions): Promise<NotifyResult> {
  return postToWebhook("zoom", options, (url) => {
    url.searchParams.set("format", "full");
    const head: Record<string, unknown> = { text: options.title ?? options.message };
    if (options.subtitle) head.sub_head = { text: options.subtitle };
    // Without a title the message is the heading; with one it is the first body line.
    const body: ZoomBodyItem[] = [...(options.title ? [{ type: "message", text: options.message }] : []), ...(options.sections ?? [])];
    return {
      payload: { content: body.length > 0 ? { head, body } : { head } },
      config: options.verificationToken ? { headers: { authorization: options.verificationToken } } : undefined,
    };
  });
}
