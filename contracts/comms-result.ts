/**
 * How a provider failure is classified (SPEC §2.7): `permanent` (the recipient or token will never
 * work: not retried, push tokens deactivated), `transient` (a network blip, rate limit or provider
 * outage: retried once inline), `config` (our set-up is wrong: a bad key, a missing sender; not
 * retried, the next fallback provider is tried).
 */
export type CommsErrorClass = "permanent" | "transient" | "config";

/**
 * The result of one provider call, and of every comms service call: never a rejection.
 *
 * @example
 * const result: SendResult = { accepted: false, errorCode: "invalid-recipient", errorClass: "permanent", isPermanentFailure: true };
 */
export interface SendResult {
  readonly accepted: boolean;
  /** A stable, provider-neutral code (see `SEND_ERROR_CODES`) or a provider's own code; absent when accepted. */
  readonly errorCode?: string;
  readonly errorClass?: CommsErrorClass;
  /** True when retrying (now or later) cannot succeed for this recipient or token. */
  readonly isPermanentFailure: boolean;
  /** The provider's id of the accepted message (for delivery webhooks and support). */
  readonly providerMessageId?: string;
  /** A deep link to the message in the provider's console, when it has one. */
  readonly consoleUrl?: string;
}

/**
 * The provider-neutral error codes adapters classify failures into. Adapters may return a more
 * specific provider code, but these are what callers can rely on.
 *
 * @example
 * if (result.errorCode === SEND_ERROR_CODES.providerThrow) retryLater();
 */
export const SEND_ERROR_CODES = Object.freeze({
  /** The adapter threw instead of answering: treated as transient (SPEC §7). */
  providerThrow: "provider-throw",
  /** The recipient address or number is malformed or does not exist. */
  invalidRecipient: "invalid-recipient",
  /** The message itself was refused (too large, missing content...). */
  invalidMessage: "invalid-message",
  /** The push token is unknown or expired at the provider: the token is deactivated. */
  tokenInvalid: "token-invalid",
  /** The recipient opted out or blocked us. */
  recipientOptedOut: "recipient-opted-out",
  /** The provider refused our credentials or account. */
  unauthorized: "unauthorized",
  /** A required setting (sender, key) is missing or refused. */
  misconfigured: "misconfigured",
  rateLimited: "rate-limited",
  /** The provider answered 5xx. */
  providerUnavailable: "provider-unavailable",
  /** The request did not reach the provider or no answer came back. */
  network: "network",
  /** The provider answered something we cannot read. */
  malformedResponse: "malformed-response",
  /** There was no one to send to (a user without active push tokens). */
  noRecipients: "no-recipients",
  /** No provider serves the channel (a production app without one). */
  channelNotConfigured: "channel-not-configured",
  /** `beforeSend` cancelled the message: no provider was called. */
  cancelled: "cancelled",
});

/** An accepted result. */
export function acceptedResult(extra: { providerMessageId?: string; consoleUrl?: string } = {}): SendResult {
  return { accepted: true, isPermanentFailure: false, ...extra };
}

/**
 * A refused result; `isPermanentFailure` follows the class.
 *
 * @example
 * return failedResult(SEND_ERROR_CODES.rateLimited, "transient");
 */
export function failedResult(errorCode: string, errorClass: CommsErrorClass): SendResult {
  return { accepted: false, errorCode, errorClass, isPermanentFailure: errorClass === "permanent" };
}

/**
 * Classifies an HTTP status a provider answered with; what most adapters need besides their own
 * error codes: 401/403 config, 429 and 5xx transient, other 4xx permanent.
 *
 * @example
 * failedResult(...classifyHttpStatus(response.status));
 */
export function classifyHttpStatus(status: number | undefined): [string, CommsErrorClass] {
  if (status === undefined || status === 0) return [SEND_ERROR_CODES.network, "transient"];
  if (status === 401 || status === 403) return [SEND_ERROR_CODES.unauthorized, "config"];
  if (status === 408) return [SEND_ERROR_CODES.network, "transient"];
  if (status === 429) return [SEND_ERROR_CODES.rateLimited, "transient"];
  if (status >= 500) return [SEND_ERROR_CODES.providerUnavailable, "transient"];
  if (status === 404 || status === 410) return [SEND_ERROR_CODES.invalidRecipient, "permanent"];
  return [SEND_ERROR_CODES.invalidMessage, "permanent"];
}

/** Runs a provider call and turns a throw into the transient `provider-throw` result (SPEC §7). */
export async function guardProviderCall<R>(call: () => Promise<R>, onThrow: (error: unknown) => R): Promise<R> {
  try {
    return await call();
  } catch (error) {
    return onThrow(error);
  }
}
