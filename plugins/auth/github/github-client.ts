import axios, { type AxiosInstance } from "axios";
import { AuthErrors } from "../errors.js";

/** What the auth plugin keeps of a GitHub account. */
export interface GitHubProfile {
  /** GitHub's numeric user id, as a string (logins can be renamed; ids cannot). */
  readonly id: string;
  readonly login: string;
  readonly profileUrl?: string;
  readonly avatarUrl?: string;
  readonly name?: string;
  /** The account's primary email when GitHub reports it verified, lower-cased. */
  readonly primaryVerifiedEmail?: string;
  /** Every email GitHub reports verified, lower-cased. Only these may link accounts. */
  readonly verifiedEmails: readonly string[];
}

export interface GitHubClientOptions {
  clientId: string;
  clientSecret: string;
  callbackURL: string;
  /** Default `["read:user", "user:email"]` (`user:email` is needed to see verified emails). */
  scope?: readonly string[];
  /** Overridable for GitHub Enterprise. */
  webBaseUrl?: string;
  apiBaseUrl?: string;
  http?: AxiosInstance;
}

/**
 * GitHub's OAuth web flow over axios: the authorize URL, the code exchange and the profile with
 * verified emails. Any failure (network, GitHub error, unexpected shape) becomes 502
 * `AUTH_OAUTH_PROVIDER_FAILED`; GitHub's answers are never passed through to the client.
 *
 * @example
 * const github = new GitHubClient({ clientId, clientSecret, callbackURL });
 * res.redirect(github.authorizeUrl(state));
 * const profile = await github.fetchProfile(await github.exchangeCode(code));
 */
export class GitHubClient {
  private readonly http: AxiosInstance;
  private readonly web: string;
  private readonly api: string;

  constructor(private readonly options: GitHubClientOptions) {
    this.http = options.http ?? axios.create({ timeout: 10_000, maxRedirects: 0 });
    this.web = (options.webBaseUrl ?? "https://github.com").replace(/\/+$/, "");
    this.api = (options.apiBaseUrl ?? "https://api.github.com").replace(/\/+$/, "");
  }

  authorizeUrl(state: string): string {
    const url = new URL(`${this.web}/login/oauth/authorize`);
    url.searchParams.set("client_id", this.options.clientId);
    url.searchParams.set("redirect_uri", this.options.callbackURL);
    url.searchParams.set("scope", (this.options.scope ?? ["read:user", "user:email"]).join(" "));
    url.searchParams.set("state", state);
    return url.toString();
  }

  async exchangeCode(code: string): Promise<string> {
    const response = await this.call(() =>
      this.http.post(
        `${this.web}/login/oauth/access_token`,
        {
          client_id: this.options.clientId,
          client_secret: this.options.clientSecret,
          code,
          redirect_uri: this.options.callbackURL,
        },
        { headers: { Accept: "application/json" } },
      ),
    );
    const token = (response as { access_token?: unknown }).access_token;
    if (typeof token !== "string" || token.length === 0) throw AuthErrors.OAUTH_PROVIDER_FAILED({ detail: "GitHub did not issue an access token" });
    return token;
  }

  async fetchProfile(accessToken: string): Promise<GitHubProfile> {
    const headers = {
      Accept: "application/vnd.github+json",
      Authorization: `Bearer ${accessToken}`,
      "User-Agent": "svc-auth",
      "X-GitHub-Api-Version": "2022-11-28",
    };
    const [user, emails] = await Promise.all([
      this.call(() => this.http.get(`${this.api}/user`, { headers })),
      this.call(() => this.http.get(`${this.api}/user/emails`, { headers })),
    ]);
    const profile = user as { id?: unknown; login?: unknown; html_url?: unknown; avatar_url?: unknown; name?: unknown };
    if ((typeof profile.id !== "number" && typeof profile.id !== "string") || typeof profile.login !== "string") {
      throw AuthErrors.OAUTH_PROVIDER_FAILED({ detail: "GitHub returned an unexpected profile" });
    }
    const verified = (Array.isArray(emails) ? emails : []).filter(
      (entry): entry is { email: string; verified: true; primary?: boolean } =>
        typeof entry === "object" && entry !== null && typeof entry.email === "string" && entry.verified === true,
    );
    const primary = verified.find((entry) => entry.primary === true);
    return {
      id: String(profile.id),
      login: profile.login,
      profileUrl: typeof profile.html_url === "string" ? profile.html_url : undefined,
      avatarUrl: typeof profile.avatar_url === "string" ? profile.avatar_url : undefined,
      name: typeof profile.name === "string" ? profile.name : undefined,
      primaryVerifiedEmail: primary?.email.trim().toLowerCase(),
      verifiedEmails: verified.map((entry) => entry.email.trim().toLowerCase()),
    };
  }

  private async call(request: () => Promise<{ data: unknown; status: number }>): Promise<unknown> {
    try {
      const response = await request();
      const data = response.data;
      if (data && typeof data === "object" && "error" in data) throw new Error("GitHub answered with an error");
      return data;
    } catch {
      throw AuthErrors.OAUTH_PROVIDER_FAILED();
    }
  }
}
