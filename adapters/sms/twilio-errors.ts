import { classifyHttpStatus, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";

/** Twilio error codes that name a recipient who cannot receive (https://www.twilio.com/docs/api/errors). */
const BAD_RECIPIENT = new Set([21211, 21214, 21217, 21401, 21407, 21421, 21612, 21614, 60200, 60205]);
const OPTED_OUT = new Set([21610]);
/** Our account or sender is not set up for this. */
const CONFIG = new Set([20003, 20005, 20008, 20404, 21212, 21606, 21608, 21659, 21408, 21660, 60001, 60202]);
const TRANSIENT = new Set([20429, 20500, 20503, 30001, 60203]);

/**
 * What a failure of the `twilio` library means for a send: its `RestException` (HTTP status and
 * Twilio error code), or a network failure (no status).
 *
 * @example
 * classifyTwilioError({ status: 400, code: 21211 }); // permanent invalid-recipient
 */
export function classifyTwilioError(error: unknown): SendResult {
  const status = typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : undefined;
  const code = typeof (error as { code?: unknown })?.code === "number" ? (error as { code: number }).code : undefined;
  if (code !== undefined) {
    if (OPTED_OUT.has(code)) return failedResult(SEND_ERROR_CODES.recipientOptedOut, "permanent");
    if (BAD_RECIPIENT.has(code)) return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
    if (TRANSIENT.has(code)) return failedResult(code === 20429 ? SEND_ERROR_CODES.rateLimited : SEND_ERROR_CODES.providerUnavailable, "transient");
    if (CONFIG.has(code)) return failedResult(SEND_ERROR_CODES.misconfigured, "config");
  }
  if (status === undefined) {
    // A response that is not Twilio's JSON (a proxy's HTML page) reaches us as a plain error too.
    return failedResult(/json|unexpected token|parse/i.test(String((error as { message?: unknown })?.message ?? "")) ? SEND_ERROR_CODES.malformedResponse : SEND_ERROR_CODES.network, "transient");
  }
  const [errorCode, errorClass] = classifyHttpStatus(status);
  return failedResult(errorCode, errorClass);
}
