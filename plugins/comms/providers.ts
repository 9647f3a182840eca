// The `svc/comms/providers` package entry: the provider adapters, apart from `svc/comms` so an app
// loads only the provider libraries it imports (twilio alone is several megabytes).
export { SendGridMailer, classifySendGridError, sendGridActivityUrl, type SendGridMailerOptions } from "../../adapters/mail/sendgrid.js";
export { sendGridWebhook } from "../../adapters/mail/sendgrid-webhook.js";
export { SmtpMailer, classifySmtpError, type SmtpMailerOptions } from "../../adapters/mail/smtp.js";
export { MailAdapterErrors } from "../../adapters/mail/errors.js";
export { TwilioSmsSender, type TwilioSmsOptions } from "../../adapters/sms/twilio.js";
export { twilioStatusWebhook } from "../../adapters/sms/twilio-webhook.js";
export { classifyTwilioError } from "../../adapters/sms/twilio-errors.js";
export { SmsAdapterErrors } from "../../adapters/sms/errors.js";
export { TwilioVerificationSender, type TwilioVerificationOptions } from "../../adapters/verification/twilio.js";
export { VerificationAdapterErrors } from "../../adapters/verification/errors.js";
export { ExpoPushSender, type ExpoPushOptions } from "../../adapters/push/expo.js";
export { WebPushSender, type VapidDetails, type WebPushOptions } from "../../adapters/push/web-push.js";
export { DEFAULT_WEB_PUSH_HOSTS } from "../../adapters/push/push-token-format.js";
export { PushAdapterErrors } from "../../adapters/push/errors.js";
