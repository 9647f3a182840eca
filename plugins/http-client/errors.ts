import { defineErrors, SvcError } from "../../kernel/errors.js";
import type { ApiErrorClassification, NormalizedApiError } from "./normalize-api-error.js";

/** Errors of the outbound HTTP client (codes `HTTP_CLIENT_*`). */
export const HttpClientErrors = defineErrors("HTTP_CLIENT", {
  REQUEST_FAILED: {
    status: 502,
    message: (apiName: string, operation: string, detail: string) => `${apiName} ${operation} failed: ${detail}`,
  },
  TOKEN_REQUEST_FAILED: {
    status: 502,
    message: (apiName: string, detail: string) => `${apiName}: fetching an OAuth2 access token failed: ${detail}`,
  },
  INVALID_TOKEN_RESPONSE: {
    status: 502,
    message: (apiName: string) => `${apiName}: the OAuth2 token endpoint returned no access_token`,
  },
  INVALID_OPTIONS: { message: (problem: string) => `createAuthenticatedClient: ${problem}` },
});

// The normalised fields are declared once, in `NormalizedApiError`; the class gets their types by
// declaration merging and their values in the constructor.
export interface ApiCallError extends NormalizedApiError {}

/**
 * An outbound call failure carrying the normalised fields — what `withApiErrorHandling` throws
 * with `rethrowAs: "apiError"`. Its `code` is `HTTP_CLIENT_REQUEST_FAILED` (or
 * `HTTP_CLIENT_TOKEN_REQUEST_FAILED` when the OAuth2 token could not be fetched); its status is
 * 502, but a route that lets it escape answers 500 `HTTP_INTERNAL`, as for every 5xx.
 *
 * @example
 * if (error instanceof ApiCallError && error.classification === "notFound") return null;
 */
export class ApiCallError extends SvcError {
  constructor(normalized: NormalizedApiError, options: { cause?: unknown; code?: string; message?: string } = {}) {
    super(
      options.code ?? HttpClientErrors.REQUEST_FAILED.code,
      options.message ?? HttpClientErrors.REQUEST_FAILED(normalized.apiName, normalized.operation, describe(normalized)).message,
      { status: 502, cause: options.cause },
    );
    this.name = "ApiCallError";
    Object.assign(this, normalizedFields(normalized));
  }

  /** The normalised fields alone (for logs). */
  toJSON(): NormalizedApiError {
    return normalizedFields(this);
  }
}

function normalizedFields({ isAxios, statusCode, messages, classification, apiName, operation }: NormalizedApiError): NormalizedApiError {
  return { isAxios, statusCode, messages, classification, apiName, operation };
}

function describe(normalized: NormalizedApiError): string {
  const status = normalized.statusCode === undefined ? "no response" : `status ${normalized.statusCode}`;
  return `${normalized.classification} (${status})`;
}
