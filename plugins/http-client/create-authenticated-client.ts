import axios, { AxiosHeaders, isAxiosError, type AxiosInstance } from "axios";
import { namespace as retryNamespace } from "axios-retry";
import type { SvcLogger } from "../../kernel/logger.js";
import { getCurrentRequestContextAttributes, logger as defaultLogger } from "../logging/index.js";
import { HttpClientErrors } from "./errors.js";
import { OAuth2TokenSource, type OAuth2ClientCredentials } from "./oauth2-token-source.js";
import { applyRetryPolicy, type RetryOptions } from "./retry-policy.js";

/** `Authorization: Bearer <token>` from your own token provider, asked on every request. */
export interface BearerAuth {
  type: "bearer";
  getToken: () => string | Promise<string>;
}

/** OAuth2 client credentials: the token is cached and refreshed once after a 401. */
export interface OAuth2Auth {
  type: "oauth2";
  tokenUrl: string;
  credentials: OAuth2ClientCredentials;
  /** After a 401, fetch a new token and repeat the request once. Default true. */
  refreshOn401?: boolean;
}

/** An API key in a header (e.g. `x-api-key`), asked on every request. */
export interface ApiKeyAuth {
  type: "apiKey";
  header: string;
  getKey: () => string | Promise<string>;
}

export type OutboundAuth = BearerAuth | OAuth2Auth | ApiKeyAuth;

export interface CreateAuthenticatedClientOptions {
  /** Names the upstream in logs and errors, e.g. `crm`. */
  apiName: string;
  baseURL: string;
  auth: OutboundAuth;
  /** Retry settings, or `false` for none. Default: 3 attempts, 250 ms base, 30 s cap. */
  retry?: RetryOptions | false;
  /** Per-attempt timeout. Default 30 000 ms. */
  timeoutMs?: number;
  /** Headers sent on every request. */
  headers?: Record<string, string>;
  /**
   * Where retries and token refreshes are logged. Inside an app pass `ctx.logger`; the default is
   * the logging plugin's global `logger` (for scripts and code outside an app).
   */
  logger?: SvcLogger;
  /** Clock for token expiry (tests). */
  now?: () => number;
}

/** What `createAuthenticatedClient` returns. */
export interface AuthenticatedClient {
  /** An axios instance: `http.get(path)`, `http.post(path, body, config)`... */
  readonly http: AxiosInstance;
  /** Forgets a cached OAuth2 token (no-op for the other strategies). */
  invalidateToken(): void;
}

/**
 * An axios client for one upstream API, with authentication, the SPEC retry policy (3 attempts,
 * exponential backoff from 250 ms with jitter, `Retry-After` honoured up to 30 s, only
 * GET/HEAD/OPTIONS unless `markRetryUnsafe`) and the caller's correlation headers (`x-request-id`,
 * `traceparent`...) on every call.
 *
 * @example
 * const crm = createAuthenticatedClient({
 *   apiName: "crm",
 *   baseURL: "https://api.crm.example.com/v2",
 *   auth: { type: "oauth2", tokenUrl: "https://auth.crm.example.com/token", credentials: { clientId, clientSecret } },
 * });
 * const { data } = await crm.http.get("/contacts", { params: { email } });
 */
export function createAuthenticatedClient(options: CreateAuthenticatedClientOptions): AuthenticatedClient {
  if (!options.apiName) throw HttpClientErrors.INVALID_OPTIONS("apiName is required");
  if (!options.auth || !["bearer", "oauth2", "apiKey"].includes(options.auth.type)) {
    throw HttpClientErrors.INVALID_OPTIONS('auth.type must be "bearer", "oauth2" or "apiKey"');
  }
  const logger = () => options.logger ?? defaultLogger;
  const http = axios.create({ baseURL: options.baseURL, timeout: options.timeoutMs ?? 30_000, headers: options.headers });
  const auth = options.auth;
  const tokens =
    auth.type === "oauth2"
      ? new OAuth2TokenSource({ apiName: options.apiName, tokenUrl: auth.tokenUrl, credentials: auth.credentials, now: options.now, timeoutMs: options.timeoutMs })
      : undefined;

  http.interceptors.request.use(async (config) => {
    const headers = AxiosHeaders.from(config.headers);
    for (const [name, value] of Object.entries(getCurrentRequestContextAttributes())) {
      if (!headers.has(name)) headers.set(name, value);
    }
    if (auth.type === "bearer") headers.set("Authorization", `Bearer ${await auth.getToken()}`);
    else if (auth.type === "apiKey") headers.set(auth.header, await auth.getKey());
    else {
      config.svcOAuthToken = await tokens!.get();
      headers.set("Authorization", `Bearer ${config.svcOAuthToken}`);
    }
    config.headers = headers;
    return config;
  });

  if (options.retry !== false) applyRetryPolicy(http, { apiName: options.apiName, logger, retry: options.retry });

  if (auth.type === "oauth2" && auth.refreshOn401 !== false) {
    // Registered after axios-retry: a 401 is not retryable there, so it arrives here untouched.
    http.interceptors.response.use(undefined, async (error: unknown) => {
      if (!isAxiosError(error) || error.response?.status !== 401 || !error.config || error.config.svcAuthRetried) throw error;
      tokens!.invalidate(error.config.svcOAuthToken);
      logger().info(`${options.apiName}: access token rejected (401); fetching a new one and retrying once`, { apiName: options.apiName });
      // A new request, with its own retries: axios-retry keeps its count in the config it copied.
      const retryState = (error.config as { [retryNamespace]?: Record<string, unknown> })[retryNamespace];
      return http.request({ ...error.config, svcAuthRetried: true, ...(retryState ? { [retryNamespace]: { ...retryState, retryCount: 0 } } : {}) });
    });
  }

  return {
    http,
    invalidateToken: () => tokens?.invalidate(),
  };
}
