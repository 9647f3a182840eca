/** Client credentials of one social identity provider. */
export interface OAuthClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * Session-based auth settings (SPEC §5.3). Values given here win over the variables
 * `SESSION_AUTH_SECRET`, `SESSION_AUTH_URL` and `<PROVIDER>_CLIENT_ID/SECRET`.
 *
 * @example
 * authPlugin({ userModel: User, sessionAuth: { trustedOrigins: ["https://app.example.com"] } });
 */
export interface SessionAuthOptions {
  /**
   * Omitted: these settings select session auth unless `AUTH_PROVIDER` names a provider. `true`:
   * session auth whatever `AUTH_PROVIDER` says. `false`: `AUTH_PROVIDER` decides (default `jwt`).
   */
  enabled?: boolean;
  /** Signs session cookies; at least 32 characters in production. */
  secret?: string;
  /** This API's public URL, e.g. `https://api.example.com` (callback URLs are built from it). */
  baseURL?: string;
  /** Browser origins allowed to make state-changing auth requests and to be redirect targets. */
  trustedOrigins?: readonly string[];
  githubOAuth?: OAuthClientCredentials;
  googleOAuth?: OAuthClientCredentials;
  appleOAuth?: OAuthClientCredentials;
  /** User-model field holding the session system's user id (default `federatedId`). */
  federatedField?: string;
  /** Session lifetime in seconds (default 7 days; extended daily while in use). */
  sessionExpiresInSeconds?: number;
}
