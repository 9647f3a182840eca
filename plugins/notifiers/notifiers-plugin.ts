import { token } from "../../kernel/container.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { sendToGoogleChat, type GoogleChatNotifyOptions } from "./google-chat.js";
import { readNotifiersEnvironment } from "./notifiers-environment.js";
import type { NotifyResult } from "./post-to-webhook.js";
import { sendToSlack, type SlackNotifyOptions } from "./slack.js";
import { sendToZoom, type ZoomNotifyOptions } from "./zoom.js";

/** The chat notifiers bound to an app: its logger and its environment's webhook maps. */
export interface Notifiers {
  sendToSlack(options: SlackNotifyOptions): Promise<NotifyResult>;
  sendToGoogleChat(options: GoogleChatNotifyOptions): Promise<NotifyResult>;
  sendToZoom(options: ZoomNotifyOptions): Promise<NotifyResult>;
}

export const NOTIFIERS = token<Notifiers>("notifiers.Notifiers");

/**
 * The notifiers' part of an app; `SvcApp` adds it by default. In `register()` it reads
 * `SLACK_WEBHOOKS`, `GOOGLE_CHAT_WEBHOOKS`, `ZOOM_WEBHOOKS` and `WEBHOOK_SECRET` from the app's
 * environment, so a malformed map fails the start with `CONFIG_INVALID_ENVIRONMENT` naming it,
 * and binds `NOTIFIERS`: the three notifiers logging through `ctx.logger` and resolving channels
 * from the app's environment (options you pass win).
 *
 * @example
 * const notifiers = ctx.resolve(NOTIFIERS);
 * await notifiers.sendToSlack({ channel: "alerts", message: "Nightly import failed" });
 */
export function notifiersPlugin(): SvcPlugin {
  return {
    name: "notifiers",
    register(ctx) {
      readNotifiersEnvironment(ctx.config.env);
      // The logger is read per call: a later LOGGER override still takes effect.
      const inApp = () => ({ logger: ctx.logger, env: ctx.config.env });
      ctx.container.bind(NOTIFIERS, {
        useValue: {
          sendToSlack: (options) => sendToSlack({ ...inApp(), ...options }),
          sendToGoogleChat: (options) => sendToGoogleChat({ ...inApp(), ...options }),
          sendToZoom: (options) => sendToZoom({ ...inApp(), ...options }),
        },
      });
    },
  };
}
