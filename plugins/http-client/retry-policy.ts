import type { AxiosError, AxiosInstance, AxiosRequestConfig } from "axios";
import axiosRetry, { exponentialDelay, isNetworkError } from "axios-retry";
import type { SvcLogger } from "../../kernel/logger.js";
import { redactUrl } from "../logging/index.js";
import { classifyStatus, type ApiErrorClassification } from "./normalize-api-error.js";

declare module "axios" {
  interface AxiosRequestConfig {
    /** Set by `markRetryUnsafe`: retry this non-idempotent request on transient failures. */
    svcRetryUnsafe?: boolean;
    /** Internal: this request already got its one OAuth2 refresh after a 401. */
    svcAuthRetried?: boolean;
    /** Internal: the OAuth2 access token this request was sent with. */
    svcOAuthToken?: string;
  }
}

/** Outbound retry settings (SPEC §7/§8). */
export interface RetryOptions {
  /** Attempts in total, the first included. Default 3. */
  maxAttempts?: number;
  /** First retry waits this long, doubling each time, plus up to 20% jitter. Default 250 ms. */
  baseDelayMs?: number;
  /** Upper bound of any wait, `Retry-After` included. Default 30 000 ms. */
  maxDelayMs?: number;
  /**
   * Multiplies the time actually waited (the computed delay is still reported and logged): tests
   * pass 0 to run retry scenarios without sleeping. Default 1.
   */
  delayScale?: number;
  /** Called before each retry. */
  onRetry?: (event: RetryEvent) => void;
}

/** One scheduled retry. */
export interface RetryEvent {
  readonly apiName: string;
  /** The attempt about to be made (2 for the first retry). */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** The computed wait before it, in ms (before `delayScale`). */
  readonly delayMs: number;
  readonly classification: ApiErrorClassification;
  readonly statusCode?: number;
  readonly method: string;
  readonly url?: string;
}

export const DEFAULT_RETRY = { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 30_000 } as const;

const SAFE_METHODS = new Set(["get", "head", "options"]);

/**
 * Opts one non-idempotent request (POST, PUT, PATCH, DELETE) into retries, for calls that are
 * safe to repeat (e.g. with an idempotency key).
 *
 * @example
 * await http.post("/payments", body, markRetryUnsafe({ headers: { "Idempotency-Key": key } }));
 */
export function markRetryUnsafe<T extends AxiosRequestConfig>(config?: T): T & { svcRetryUnsafe: true } {
  return { ...(config ?? ({} as T)), svcRetryUnsafe: true };
}

/**
 * Whether a failed request may be retried: transient failures only (no response from the network,
 * 429, 5xx), and only for GET, HEAD and OPTIONS unless `markRetryUnsafe` was used.
 *
 * @example
 * isRetryableRequestError(error); // true for a GET that got 503
 */
export function isRetryableRequestError(error: AxiosError): boolean {
  const method = (error.config?.method ?? "get").toLowerCase();
  if (!SAFE_METHODS.has(method) && error.config?.svcRetryUnsafe !== true) return false;
  if (!error.response) return isNetworkError(error);
  const classification = classifyStatus(error.response.status);
  return classification === "rateLimited" || classification === "server";
}

/**
 * The wait before retry number `retryNumber` (1-based): `baseDelayMs × 2^(n-1)` or the
 * `Retry-After` header (seconds or HTTP-date) when longer, plus up to 20% jitter, capped at
 * `maxDelayMs`.
 *
 * @example
 * computeRetryDelay(1, error, { baseDelayMs: 250, maxDelayMs: 30_000 }); // 250–300
 */
export function computeRetryDelay(retryNumber: number, error: AxiosError | undefined, options: { baseDelayMs: number; maxDelayMs: number }): number {
  return Math.min(options.maxDelayMs, exponentialDelay(retryNumber - 1, error, options.baseDelayMs));
}

/**
 * Installs the retry policy on an axios instance with axios-retry.
 *
 * @example
 * applyRetryPolicy(instance, { apiName: "crm", logger, retry: { maxAttempts: 3 } });
 */
export function applyRetryPolicy(instance: AxiosInstance, options: { apiName: string; logger: () => SvcLogger; retry?: RetryOptions }): void {
  const maxAttempts = Math.max(1, Math.floor(options.retry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts));
  const delays = { baseDelayMs: options.retry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs, maxDelayMs: options.retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs };
  const scale = options.retry?.delayScale ?? 1;
  // axios-retry computes the delay before calling onRetry; keep it to report it there.
  const computed = new WeakMap<object, number>();
  axiosRetry(instance, {
    retries: maxAttempts - 1,
    shouldResetTimeout: true,
    retryCondition: isRetryableRequestError,
    retryDelay: (retryCount, error) => {
      const delay = computeRetryDelay(retryCount, error, delays);
      if (error.config) computed.set(error.config, delay);
      return delay * scale;
    },
    onRetry: (retryCount, error, config) => {
      const event: RetryEvent = {
        apiName: options.apiName,
        attempt: retryCount + 1,
        maxAttempts,
        delayMs: computed.get(config) ?? 0,
        classification: error.response ? classifyStatus(error.response.status) : "network",
        statusCode: error.response?.status,
        method: (config.method ?? "get").toUpperCase(),
        url: config.url,
      };
      // The message is text the logger's key-based redaction cannot see into: the URL is redacted here.
      options.logger().warn(`${options.apiName}: retrying ${event.method} ${redactUrl(event.url ?? "")} (attempt ${event.attempt} of ${maxAttempts}) in ${Math.round(event.delayMs)}ms`, {
        apiName: options.apiName,
        attempt: event.attempt,
        delayMs: Math.round(event.delayMs),
        classification: event.classification,
        statusCode: event.statusCode,
      });
      options.retry?.onRetry?.(event);
    },
  });
}
