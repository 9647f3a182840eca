/**
 * `githubAuth` (SPEC §5.2) plus where the callback may send the browser.
 *
 * @example
 * authPlugin({ userModel: User, githubAuth: { clientId, clientSecret, callbackURL, allowedReturnOrigins: ["https://app.example.com"] } });
 */
export interface GitHubAuthOptions {
  clientId: string;
  clientSecret: string;
  /** This app's callback URL as registered at GitHub, e.g. `https://api.example.com/auth/github/callback`. */
  callbackURL: string;
  /** Default `["read:user", "user:email"]`. */
  scope?: readonly string[];
  /** Link a GitHub sign-in to an existing account with the same GitHub-verified email. Default false. */
  allowAccountLinking?: boolean;
  /** Origins a `returnTo` may point at, e.g. `["https://app.example.com"]`. Default: none. */
  allowedReturnOrigins?: readonly string[];
  /** Where the callback goes when the flow had no `returnTo` (must be on an allowed origin). */
  defaultReturnTo?: string;
  /** GitHub Enterprise: web and API base URLs. */
  webBaseUrl?: string;
  apiBaseUrl?: string;
}
