import { defineErrors } from "../../kernel/errors.js";

/**
 * Set-up mistakes of the verification adapters, thrown when one is constructed.
 *
 * @example
 * new TwilioVerificationSender({ accountSid, authToken }); // throws VERIFICATION_ADAPTER_SERVICE_REQUIRED
 */
export const VerificationAdapterErrors = defineErrors("VERIFICATION_ADAPTER", {
  /** Twilio Verify needs `accountSid` and `authToken` (or `TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`). */
  CREDENTIALS_REQUIRED: { message: () => "The Twilio Verify adapter needs accountSid and authToken (or TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN)" },
  /** Twilio Verify needs the Verify service's SID (`serviceSid` or `TWILIO_VERIFY_SERVICE_SID`). */
  SERVICE_REQUIRED: { message: () => "The Twilio Verify adapter needs serviceSid (or TWILIO_VERIFY_SERVICE_SID)" },
});
