// The chat notifiers' and webhook signatures' public surface, re-exported by the package entry's
// `--- notifiers` section. Other plugins import the notifiers only through this file.
export { notifiersPlugin, NOTIFIERS, type Notifiers } from "./notifiers-plugin.js";
export { sendToSlack, type SlackNotifyOptions, type SlackBlock } from "./slack.js";
export { sendToGoogleChat, type GoogleChatNotifyOptions, type GoogleChatSection } from "./google-chat.js";
export { sendToZoom, type ZoomNotifyOptions, type ZoomBodyItem } from "./zoom.js";
export type { NotifyOptions, NotifyResult } from "./post-to-webhook.js";
export type { WebhookTarget } from "./webhook-targets.js";
export {
  signWebhookPayload,
  verifyWebhookSignature,
  isValidWebhookSignature,
  type VerifyWebhookSignatureOptions,
} from "./webhook-signature.js";
export { webhookSignatureMiddleware, type WebhookSignatureMiddlewareOptions } from "./webhook-signature-middleware.js";
export { NotifierErrors, WebhookSignatureErrors } from "./errors.js";
