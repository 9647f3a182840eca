import axios, { type AxiosInstance } from "axios";
import { getCurrentRequestContextAttributes, REDACTED } from "../logging/index.js";
import { ApiCallError, HttpClientErrors } from "./errors.js";
import { normalizeApiError } from "./normalize-api-error.js";

/** OAuth2 client-credentials settings. */
export interface OAuth2ClientCredentials {
  clientId: string;
  clientSecret: string;
  scope?: string | readonly string[];
  audience?: string;
  /** How the client authenticates to the token endpoint: HTTP Basic (default, RFC 6749 §2.3.1) or form fields. */
  authMethod?: "basic" | "body";
}

/** Longest a token is reused before its expiry: refresh this much early. */
const EXPIRY_SKEW_MS = 30_000;

/**
 * Fetches and caches an OAuth2 client-credentials access token. Concurrent callers share one
 * token request; the token is reused until shortly before `expires_in` runs out or until
 * `invalidate()` (called after a 401). Failures are `HTTP_CLIENT_TOKEN_REQUEST_FAILED` errors that
 * never carry the client secret.
 *
 * @example
 * const tokens = new OAuth2TokenSource({ apiName: "crm", tokenUrl, credentials });
 * const token = await tokens.get();
 */
export class OAuth2TokenSource {
  private cached?: { token: string; expiresAt: number };
  private pending?: Promise<string>;
  private generation = 0;
  private readonly http: AxiosInstance;

  constructor(
    private readonly options: {
      apiName: string;
      tokenUrl: string;
      credentials: OAuth2ClientCredentials;
      now?: () => number;
      timeoutMs?: number;
    },
  ) {
    this.http = axios.create({ timeout: options.timeoutMs ?? 30_000 });
  }

  /** A valid access token, fetched only when none is cached or it is about to expire. */
  get(): Promise<string> {
    const now = this.now();
    if (this.cached && now < this.cached.expiresAt) return Promise.resolve(this.cached.token);
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /**
   * Forgets the cached token; the next call fetches a new one. Given the token an upstream
   * rejected, only that one: a 401 that arrives after its token was already replaced (requests
   * sent with it before another 401 brought its successor) leaves the successor alone.
   */
  invalidate(rejected?: string): void {
    if (rejected !== undefined && rejected !== this.cached?.token) return;
    this.cached = undefined;
    this.generation += 1;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private async fetch(): Promise<string> {
    const { credentials, apiName } = this.options;
    const generation = this.generation;
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    const scope = typeof credentials.scope === "string" ? credentials.scope : credentials.scope?.join(" ");
    if (scope) form.set("scope", scope);
    if (credentials.audience) form.set("audience", credentials.audience);
    const headers: Record<string, string> = {
      ...getCurrentRequestContextAttributes(),
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if ((credentials.authMethod ?? "basic") === "basic") {
      const pair = `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
    } else {
      form.set("client_id", credentials.clientId);
      form.set("client_secret", credentials.clientSecret);
    }
    const requestedAt = this.now();
    let data: unknown;
    try {
      data = (await this.http.post(this.options.tokenUrl, form.toString(), { headers })).data;
    } catch (error) {
      // Not rethrown as is: the axios error's config holds the client secret.
      const upstream = normalizeApiError(error, { apiName, operation: "oauth2-token" });
      // A token endpoint may quote what it was sent ("client secret … is wrong"): never keep the secret.
      const secrets = [credentials.clientSecret, encodeURIComponent(credentials.clientSecret)].filter((secret) => secret.length >= 4);
      const normalized = { ...upstream, messages: upstream.messages.map((message) => secrets.reduce((text, secret) => text.split(secret).join(REDACTED), message)) };
      throw new ApiCallError(normalized, {
        code: HttpClientErrors.TOKEN_REQUEST_FAILED.code,
        message: HttpClientErrors.TOKEN_REQUEST_FAILED(apiName, `${normalized.classification} (${normalized.statusCode ?? "no response"})`).message,
      });
    }
    const body = (data ?? {}) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== "string" || body.access_token === "") throw HttpClientErrors.INVALID_TOKEN_RESPONSE(apiName);
    const lifetimeMs = Number(body.expires_in) * 1000;
    const expiresAt = Number.isFinite(lifetimeMs) && lifetimeMs > 0 ? requestedAt + lifetimeMs - Math.min(EXPIRY_SKEW_MS, lifetimeMs / 2) : Number.POSITIVE_INFINITY;
    // A token requested before an invalidate() may be the one that was just rejected.
    if (generation === this.generation) this.cached = { token: body.access_token, expiresAt };
    return body.access_token;
  }
}
