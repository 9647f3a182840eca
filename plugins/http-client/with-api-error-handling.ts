import { AxiosHeaders, isAxiosError } from "axios";
import type { SvcLogger } from "../../kernel/logger.js";
import { logger as defaultLogger } from "../logging/index.js";
import { ApiCallError } from "./errors.js";
import { normalizeApiError, type NormalizedApiError } from "./normalize-api-error.js";

export interface ApiErrorHandlingOptions {
  apiName: string;
  /** What the call does, e.g. `createInvoice`. */
  operation: string;
  /** `raw` (default) rethrows the original error; `apiError` throws an `ApiCallError` with the normalised fields. */
  rethrowAs?: "raw" | "apiError";
  /**
   * Keep upstream content out of logs and errors: no messages are logged, an `ApiCallError` has
   * none and no `cause`, and a raw axios error loses its request body, request headers and
   * response body before it is rethrown. For calls whose payloads carry personal data.
   */
  redactError?: boolean;
  /**
   * Where the failure is logged. Inside an app pass `ctx.logger`; the default is the logging
   * plugin's global `logger` (for scripts and code outside an app).
   */
  logger?: SvcLogger;
}

// An error is logged by the innermost handler only, however many wrap the call.
const logged = new WeakSet<object>();

/**
 * Runs an outbound call; on failure it normalises the error, logs it once (with the request's
 * correlation fields) and rethrows it — raw, or as an `ApiCallError` with `rethrowAs: "apiError"`.
 *
 * @example
 * const contact = await withApiErrorHandling(() => crm.http.get(`/contacts/${id}`).then((r) => r.data), {
 *   apiName: "crm",
 *   operation: "getContact",
 *   rethrowAs: "apiError",
 * });
 */
export async function withApiErrorHandling<T>(fn: () => Promise<T>, options: ApiErrorHandlingOptions): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const normalized = normalizeApiError(error, { apiName: options.apiName, operation: options.operation });
    const shown: NormalizedApiError = options.redactError ? { ...normalized, messages: [] } : normalized;
    const alreadyLogged = isObject(error) && logged.has(error);
    if (!alreadyLogged) {
      (options.logger ?? defaultLogger).error(
        `${options.apiName} ${options.operation} failed: ${normalized.classification}${normalized.statusCode === undefined ? "" : ` (${normalized.statusCode})`}`,
        { apiError: shown },
      );
    }
    if (options.rethrowAs === "apiError") {
      const wrapped = error instanceof ApiCallError ? error : new ApiCallError(shown, { cause: options.redactError ? undefined : error });
      logged.add(wrapped);
      if (isObject(error)) logged.add(error);
      throw wrapped;
    }
    if (isObject(error)) logged.add(error);
    if (options.redactError) stripAxiosPayloads(error);
    throw error;
  }
}

function isObject(value: unknown): value is object {
  return (typeof value === "object" || typeof value === "function") && value !== null;
}

function stripAxiosPayloads(error: unknown): void {
  if (!isAxiosError(error)) return;
  if (error.config) {
    error.config.data = undefined;
    error.config.headers = new AxiosHeaders();
  }
  if (error.response) error.response.data = undefined;
  (error as { request?: unknown }).request = undefined;
}
