// The outbound HTTP client's public surface, re-exported by the package entry's `--- http client`
// section. Other plugins import the client only through this file.
export {
  createAuthenticatedClient,
  type AuthenticatedClient,
  type CreateAuthenticatedClientOptions,
  type OutboundAuth,
  type BearerAuth,
  type OAuth2Auth,
  type ApiKeyAuth,
} from "./create-authenticated-client.js";
export type { OAuth2ClientCredentials } from "./oauth2-token-source.js";
export { markRetryUnsafe, type RetryOptions, type RetryEvent } from "./retry-policy.js";
export { normalizeApiError, type NormalizedApiError, type ApiErrorClassification } from "./normalize-api-error.js";
export { withApiErrorHandling, type ApiErrorHandlingOptions } from "./with-api-error-handling.js";
export { ApiCallError, HttpClientErrors } from "./errors.js";
