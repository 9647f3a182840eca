import { HttpError } from "ra-core";
import type { ApiErrorEntry } from "./api-types";
import type { AdminSettings } from "./settings";

const TOKEN_KEY = "svc-admin.token";
const REFRESH_KEY = "svc-admin.refreshToken";
const EMAIL_KEY = "svc-admin.email";
const NAME_KEY = "svc-admin.name";
/** Why the last sign-in ended, for the sign-in page to say (it outlives the sign-in on purpose). */
const ENDED_KEY = "svc-admin.ended";

/**
 * An error answer of the API. `message` is what the user reads (the first error's `detail`, else
 * its `title`). `body.errors` is only ever ra-core's field map (set by the data provider for form
 * submissions), never the API's list, which stays in `entries`.
 */
export class ApiError extends HttpError {
  constructor(
    message: string,
    status: number,
    readonly entries: readonly ApiErrorEntry[],
    readonly requestId?: string,
  ) {
    super(message, status, { entries, requestId });
    // HttpError sets its own prototype (for old transpilers), which would hide this subclass.
    Object.setPrototypeOf(this, ApiError.prototype);
    this.name = "ApiError";
  }

  get code(): string | undefined {
    return this.entries[0]?.code;
  }
}

export interface RequestOptions {
  readonly method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  readonly signal?: AbortSignal;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Talks to the app's API with the signed-in bearer token (kept in sessionStorage: it lasts as long
 * as the tab, and is never in a cookie another site could make the browser send). With JWT
 * sign-in, an expired access token is refreshed once and the request retried; concurrent requests
 * share one refresh, because each refresh token is single-use and a second refresh with the same
 * one would end the sign-in.
 */
export class ApiClient {
  private refreshing: Promise<boolean> | undefined;

  constructor(readonly settings: AdminSettings) {}

  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  get email(): string | null {
    return sessionStorage.getItem(EMAIL_KEY);
  }

  /** The signed-in user's name, when their account has one. */
  get name(): string | null {
    return sessionStorage.getItem(NAME_KEY);
  }

  /** Why the last sign-in ended (expired, revoked), until the next sign-in; null after a plain sign-out. */
  get endedBecause(): string | null {
    return sessionStorage.getItem(ENDED_KEY);
  }

  /** Signs in through the app's own route for its sign-in kind; throws an `ApiError` when refused. */
  async signIn(email: string, password: string): Promise<void> {
    const path = this.settings.signIn === "jwt" ? "/auth/login" : "/api/auth/signin/email";
    const response = await this.send(path, { method: "POST", body: { email, password } }, null);
    const data = (response as { data?: { token?: unknown; refreshToken?: unknown; user?: { name?: unknown } } } | undefined)?.data;
    if (typeof data?.token !== "string") throw new ApiError("The sign-in answer had no token", 500, []);
    sessionStorage.setItem(TOKEN_KEY, data.token);
    if (typeof data.refreshToken === "string") sessionStorage.setItem(REFRESH_KEY, data.refreshToken);
    else sessionStorage.removeItem(REFRESH_KEY);
    sessionStorage.setItem(EMAIL_KEY, email);
    sessionStorage.removeItem(ENDED_KEY);
    // Session sign-in answers with the user; the JWT one only with tokens, so ask who this is.
    const user = data.user ?? (await this.request<{ data?: { name?: unknown } }>("/auth/me").catch(() => undefined))?.data;
    if (typeof user?.name === "string" && user.name.trim() !== "") sessionStorage.setItem(NAME_KEY, user.name.trim());
    else sessionStorage.removeItem(NAME_KEY);
  }

  /**
   * Changes the signed-in person's password (JWT sign-in) and keeps this tab signed in with the
   * new sign-in the server answers with; every other sign-in of the account has ended.
   */
  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    const answer = await this.request<{ data?: { token?: unknown; refreshToken?: unknown } }>("/auth/change_password", { method: "POST", body: { currentPassword, newPassword } });
    if (typeof answer?.data?.token !== "string" || typeof answer.data.refreshToken !== "string") throw new ApiError("The answer had no new sign-in", 500, []);
    sessionStorage.setItem(TOKEN_KEY, answer.data.token);
    sessionStorage.setItem(REFRESH_KEY, answer.data.refreshToken);
  }

  /**
   * Forgets the tokens and ends the sign-in on the server too (best effort: the tab forgets it
   * whatever the server says): JWT sign-in revokes its refresh token, session sign-in its session.
   */
  async signOut(): Promise<void> {
    const token = this.token;
    const refreshToken = sessionStorage.getItem(REFRESH_KEY);
    this.forget();
    if (this.settings.signIn === "session" && token) {
      await this.send("/api/auth/signout", { method: "POST", body: {} }, token).catch(() => undefined);
    } else if (this.settings.signIn === "jwt" && refreshToken) {
      await this.send("/auth/logout", { method: "POST", body: { refreshToken } }, null).catch(() => undefined);
    }
  }

  /** Forgets the sign-in; `because` is kept for the sign-in page to say why it is shown. */
  forget(because?: string): void {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(REFRESH_KEY);
    sessionStorage.removeItem(EMAIL_KEY);
    sessionStorage.removeItem(NAME_KEY);
    if (because) sessionStorage.setItem(ENDED_KEY, because);
  }

  /** A signed-in request: the parsed JSON body (undefined for 204). */
  async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const token = this.token;
    try {
      return (await this.send(path, options, token)) as T;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401 || error.code !== "AUTH_TOKEN_EXPIRED") throw error;
      // Another request may have refreshed already while this one was in flight.
      const current = this.token;
      if (current && current !== token) return (await this.send(path, options, current)) as T;
      if (!(await this.refresh())) throw error;
      return (await this.send(path, options, this.token)) as T;
    }
  }

  private refresh(): Promise<boolean> {
    this.refreshing ??= (async () => {
      const refreshToken = sessionStorage.getItem(REFRESH_KEY);
      if (this.settings.signIn !== "jwt" || !refreshToken) return false;
      try {
        const response = (await this.send("/auth/refresh_token", { method: "POST", body: { refreshToken } }, null)) as { data?: { token?: unknown; refreshToken?: unknown } };
        if (typeof response?.data?.token !== "string") return false;
        sessionStorage.setItem(TOKEN_KEY, response.data.token);
        if (typeof response.data.refreshToken === "string") sessionStorage.setItem(REFRESH_KEY, response.data.refreshToken);
        return true;
      } catch {
        return false;
      }
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async send(path: string, options: RequestOptions, token: string | null): Promise<unknown> {
    const headers: Record<string, string> = { ...options.headers, Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined && value !== "") search.set(key, String(value));
    const query = search.size > 0 ? `?${search}` : "";
    let response: Response;
    try {
      response = await fetch(`${this.settings.prefix}${path}${query}`, {
        method: options.method ?? "GET",
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
        credentials: "same-origin",
      });
    } catch (error) {
      if ((error as Error)?.name === "AbortError") throw error;
      throw new ApiError("The server cannot be reached. Check your connection and try again.", 0, []);
    }
    if (response.status === 204) return undefined;
    const body = (await response.json().catch(() => undefined)) as { errors?: ApiErrorEntry[]; requestId?: string } | undefined;
    if (!response.ok) {
      const entries = Array.isArray(body?.errors) ? body.errors : [];
      const first = entries[0];
      const message = first?.detail ?? first?.title ?? `The server answered ${response.status} ${response.statusText}`.trim();
      throw new ApiError(message, response.status, entries, typeof body?.requestId === "string" ? body.requestId : undefined);
    }
    return body;
  }
}
