// The `svc/comms` package entry: the comms plugin's public surface. Other plugins import comms
// only through this file; provider adapters are exported here too so one import serves a project.
export { commsPlugin, COMMS_SERVICE, type CommsPlugin } from "./comms-plugin.js";
export type { CommsAppOptions, CommsHookContext, CommsPayload, BeforeSendDecision, PushNotification } from "./comms-options.js";
export type { CommsService, CommsSendResult, PushSendResult, VerificationCheckOutcome, CommsProviders } from "./comms-service.js";
export { CommsErrors } from "./errors.js";
export { readCommsEnvironment, type CommsEnvironment } from "./comms-environment.js";
export { renderTemplate, type CommsTemplate } from "./render-template.js";
export {
  commsMessageModel,
  COMMS_CHANNELS,
  COMMS_OPERATIONS,
  COMMS_STATUSES,
  REDACTED,
  type CommsAttempt,
  type CommsChannel,
  type CommsEventRecord,
  type CommsMessageFields,
  type CommsMessageModel,
  type CommsOperation,
  type CommsStatus,
} from "./comms-message-model.js";
export { pushTokenModel, PUSH_TOKEN_KINDS, type PushTokenFields, type PushTokenKind, type PushTokenModel } from "./push-token-model.js";
export { HOOK_THREW } from "./comms-hooks.js";

// Ports.
export { acceptedResult, classifyHttpStatus, failedResult, SEND_ERROR_CODES, type CommsErrorClass, type SendResult } from "../../contracts/comms-result.js";
export { MAILERS, type Mailer, type MailMessage } from "../../contracts/mailer.js";
export { SMS_SENDERS, type SmsMessage, type SmsSender } from "../../contracts/sms.js";
export { PUSH_SENDERS, type PushMessage, type PushSender, type PushTarget, type PushTokenResult } from "../../contracts/push.js";
export {
  VERIFICATION_SENDERS,
  type VerificationChannel,
  type VerificationCheck,
  type VerificationCheckResult,
  type VerificationSender,
  type VerificationStart,
} from "../../contracts/verification.js";
export type { DeliveryEvent, DeliveryEventType, DeliveryWebhook, OptOutEvent, WebhookContent, WebhookRequest } from "../../contracts/delivery-webhook.js";

// Adapters.
export { ConsoleMailer } from "../../adapters/mail/console.js";
export { ConsoleSmsSender } from "../../adapters/sms/console.js";
export { ConsolePushSender } from "../../adapters/push/console.js";
export { ConsoleVerificationSender, CONSOLE_VERIFICATION_CODE } from "../../adapters/verification/console.js";
