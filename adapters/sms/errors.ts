import { defineErrors } from "../../kernel/errors.js";

/**
 * Set-up mistakes of the SMS adapters, thrown when one is constructed (sends never throw).
 *
 * @example
 * new TwilioSmsSender({ env: {} }); // throws SMS_ADAPTER_CREDENTIALS_REQUIRED
 */
export const SmsAdapterErrors = defineErrors("SMS_ADAPTER", {
  /** Twilio needs `accountSid` and `authToken` (or `TWILIO_ACCOUNT_SID` and `TWILIO_AUTH_TOKEN`). */
  CREDENTIALS_REQUIRED: { message: () => "The Twilio adapter needs accountSid and authToken (or TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN)" },
  /** Twilio SMS needs a sender: `from` or `messagingServiceSid`. */
  SENDER_REQUIRED: { message: () => "The Twilio SMS adapter needs from (a number) or messagingServiceSid" },
});
