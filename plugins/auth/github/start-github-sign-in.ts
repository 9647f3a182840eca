import { DATABASE } from "../../../contracts/database.js";
import { HTTP_ROUTER } from "../../../contracts/http.js";
import type { PluginContext } from "../../../kernel/plugin.js";
import { AuthErrors } from "../errors.js";
import { allowedReturnTo, normalizeOrigins } from "../http/return-to.js";
import type { JwtAuthService } from "../jwt/jwt-auth-service.js";
import type { PasswordCredentials } from "../jwt/password-credentials.js";
import { GITHUB_FIELDS } from "../users/github-user-plugin.js";
import type { UserDirectory } from "../users/user-directory.js";
import type { GitHubAuthOptions } from "./github-auth-options.js";
import { GitHubClient } from "./github-client.js";
import { documentGitHubRoutes } from "./github-openapi.js";
import { GITHUB_PUBLIC_PATHS, mountGitHubRoutes } from "./github-routes.js";
import { GitHubSignIn } from "./github-sign-in.js";
import { OAuthStateSigner } from "./oauth-state.js";
import { OneTimeCodes } from "./one-time-codes.js";

/** What GitHub sign-in shares with the JWT provider it belongs to. */
export interface GitHubSignInStart {
  users: UserDirectory;
  credentials: PasswordCredentials;
  jwt: JwtAuthService;
  /** Signs OAuth `state` (`SESSION_SECRET`). */
  sessionSecret: string;
  signupDisabled: boolean;
  now: () => Date;
}

/**
 * Starts GitHub sign-in for the JWT provider: checks the user model has the GitHub fields, the
 * client credentials and callback URL are set (`AUTH_OAUTH_OPTION_INVALID`) and the configured origins, mounts and documents the routes, and returns the paths the authentication
 * middleware must leave alone.
 *
 * @example
 * for (const path of await startGitHubSignIn(ctx, options.githubAuth, { users, credentials, jwt, sessionSecret, signupDisabled, now })) publicPaths.add(path);
 */
export async function startGitHubSignIn(ctx: PluginContext, github: GitHubAuthOptions, start: GitHubSignInStart): Promise<readonly string[]> {
  const { users, now } = start;
  for (const field of GITHUB_FIELDS) users.requireField(field, "githubUserPlugin");
  // `process.env.GITHUB_CLIENT_ID!` compiles whether or not it is set: fail the start, not every sign-in.
  for (const option of ["clientId", "clientSecret", "callbackURL"] as const) {
    const value: unknown = github[option];
    if (typeof value !== "string" || value.trim() === "") throw AuthErrors.OAUTH_OPTION_INVALID(`githubAuth.${option}`, value);
  }
  const allowedReturnOrigins = normalizeOrigins(github.allowedReturnOrigins ?? []);
  if (github.defaultReturnTo !== undefined) {
    // Validated like a client's returnTo: a misconfiguration fails the start, not a sign-in.
    allowedReturnTo(github.defaultReturnTo, allowedReturnOrigins);
  }
  const codes = new OneTimeCodes(ctx.resolve(DATABASE).connection, 120, now);
  await codes.init();
  const signIn = new GitHubSignIn({
    users,
    credentials: start.credentials,
    client: new GitHubClient(github),
    states: new OAuthStateSigner(start.sessionSecret, "github", 600, now),
    codes,
    jwt: start.jwt,
    allowAccountLinking: github.allowAccountLinking ?? false,
    signupDisabled: start.signupDisabled,
    allowedReturnOrigins,
    defaultReturnTo: github.defaultReturnTo,
    now,
  });
  mountGitHubRoutes(ctx.resolve(HTTP_ROUTER), signIn, { secureCookies: ctx.config.isProduction });
  documentGitHubRoutes(ctx.openapi);
  return GITHUB_PUBLIC_PATHS;
}
