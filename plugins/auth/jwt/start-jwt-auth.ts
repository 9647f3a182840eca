import { randomBytes } from "node:crypto";
import type { Authenticator } from "../../../contracts/authenticator.js";
import { DATABASE } from "../../../contracts/database.js";
import { HTTP_ROUTER } from "../../../contracts/http.js";
import { PASSWORD_HASHER } from "../../../contracts/password-hasher.js";
import type { RequestUser } from "../../../contracts/request-user.js";
import type { PluginContext } from "../../../kernel/plugin.js";
import { throttleStoreOf } from "../../throttle/index.js";
import type { AuthEnvironment } from "../auth-environment.js";
import type { AuthRuntime } from "../auth-runtime.js";
import type { GitHubAuthOptions } from "../github/github-auth-options.js";
import { AuthErrors } from "../errors.js";
import { startGitHubSignIn } from "../github/start-github-sign-in.js";
import { authenticationMiddleware, bearerToken } from "../http/authentication-middleware.js";
import { LoginRateLimiter, type LoginRateLimiterStores, type LoginRateLimits } from "../http/login-rate-limiter.js";
import type { ProfileFieldSchemas } from "../http/request-bodies.js";
import { EMAIL_VERIFIED_AT } from "../users/email-verification-plugin.js";
import type { UserDirectory } from "../users/user-directory.js";
import { defaultJWTPayload, JwtAuthService, type GenerateJWTPayload } from "./jwt-auth-service.js";
import { documentJwtRoutes } from "./jwt-openapi.js";
import { JWT_PUBLIC_PATHS, mountJwtRoutes } from "./jwt-routes.js";
import { BackgroundWork } from "./background-work.js";
import { parseDurationSeconds } from "../../../kernel/duration.js";
import { PasswordCredentials } from "./password-credentials.js";
import type { PasswordPolicy } from "./password-policy.js";
import { AccountDeletion, type AccountDeletionOptions } from "./account-deletion.js";
import { EmailChange, type EmailChangeOptions } from "./email-change.js";
import { EmailVerification, type EmailVerificationOptions } from "./email-verification.js";
import { PasswordReset, type PasswordResetOptions } from "./password-reset.js";
import { EMAIL_CHANGE_LINKS, EMAIL_VERIFICATION_LINKS, LinkTokens, PASSWORD_RESET_LINKS } from "./link-tokens.js";
import { RefreshTokenStore } from "./refresh-token-store.js";
import { TokenService } from "./token-service.js";

/** What the JWT provider needs from the plugin's options. */
export interface JwtAuthStart {
  users: UserDirectory;
  env: AuthEnvironment;
  /** Already checked against the framework-managed fields, each with its schema on the user model. */
  profileFields: ProfileFieldSchemas;
  passwordPolicy?: PasswordPolicy;
  generateJWTPayload?: GenerateJWTPayload;
  rateLimits?: LoginRateLimits;
  rateLimiterStores?: LoginRateLimiterStores;
  githubAuth?: GitHubAuthOptions;
  onSignup?: (user: RequestUser) => unknown;
  passwordReset?: PasswordResetOptions;
  emailVerification?: EmailVerificationOptions;
  emailChange?: EmailChangeOptions;
  accountDeletion?: boolean | AccountDeletionOptions;
  now?: () => Date;
}

/**
 * Starts the JWT provider: its collections (credentials, refresh tokens), the account service,
 * the routes of SPEC §4.2 (and GitHub's when configured) and the authenticator behind both the
 * middleware and `AUTHENTICATOR`.
 *
 * @example
 * const runtime = await startJwtAuth(ctx, { users, env, profileFields: { name: { type: "string" } } });
 */
export async function startJwtAuth(ctx: PluginContext, start: JwtAuthStart): Promise<AuthRuntime> {
  const { users, env } = start;
  const settings = env.jwt!;
  const connection = ctx.resolve(DATABASE).connection;
  const now = start.now ?? (() => new Date());
  const hasher = ctx.resolve(PASSWORD_HASHER);
  const tokens = new TokenService({
    accessSecret: settings.tokenSecret,
    refreshSecret: settings.refreshTokenSecret,
    issuer: settings.issuer,
    audience: settings.audience,
    accessTokenSeconds: settings.accessTokenSeconds,
    refreshTokenSeconds: settings.refreshTokenSeconds,
    now,
  });
  const credentials = new PasswordCredentials(connection);
  // A sign-in ended on its own (signed out, its refresh token reused): its access tokens are
  // refused until the last of them would have lapsed anyway.
  const refreshTokens = new RefreshTokenStore(connection, tokens, now, (userId, familyId) =>
    users.endSignIn(userId, { sid: familyId, until: new Date(now().getTime() + settings.accessTokenSeconds * 1000) }, now()),
  );
  const resets = start.passwordReset ? new LinkTokens(connection, PASSWORD_RESET_LINKS, linkSeconds("passwordReset", start.passwordReset, "1h"), now) : undefined;
  const verifications = start.emailVerification ? new LinkTokens(connection, EMAIL_VERIFICATION_LINKS, linkSeconds("emailVerification", start.emailVerification, "24h"), now) : undefined;
  const emailChanges = start.emailChange ? new LinkTokens(connection, EMAIL_CHANGE_LINKS, linkSeconds("emailChange", start.emailChange, "1h"), now) : undefined;
  if (start.emailChange?.onChanged !== undefined && typeof start.emailChange.onChanged !== "function") {
    throw AuthErrors.MAIL_LINK_OPTION_INVALID("emailChange", "onChanged must be a function");
  }
  if (verifications) users.requireField(EMAIL_VERIFIED_AT, "emailVerificationPlugin");
  await Promise.all([credentials.init(), refreshTokens.init(), resets?.init(), verifications?.init(), emailChanges?.init()]);
  const limiter = new LoginRateLimiter(start.rateLimits, start.rateLimiterStores, throttleStoreOf(ctx.container));
  const background = new BackgroundWork(ctx.logger);

  const verification =
    verifications && new EmailVerification({ users, links: verifications, limiter, send: start.emailVerification!.send, background, now });
  const hostOnSignup = start.onSignup;
  const service = new JwtAuthService({
    users,
    credentials,
    refreshTokens,
    tokens,
    hasher,
    limiter,
    resets,
    mailedLinks: [resets, verifications, emailChanges].filter((links) => links !== undefined),
    onAccountDeleted: typeof start.accountDeletion === "object" ? start.accountDeletion.onDeleted : undefined,
    logger: ctx.logger,
    // Same KDF parameters as real hashes, so a lookup miss costs what a wrong password costs.
    dummyHash: await hasher.hash(randomBytes(32).toString("base64url")),
    generateJWTPayload: start.generateJWTPayload ?? defaultJWTPayload,
    signupDisabled: env.signupDisabled,
    passwordPolicy: start.passwordPolicy ?? {},
    // A new account gets its verification link, then the host hears of it: neither holds up the sign-up.
    onSignup:
      verification || hostOnSignup
        ? (user) => {
            verification?.mailLink(user);
            if (hostOnSignup) background.run("authPlugin onSignup", () => hostOnSignup(user), { userId: user.id });
          }
        : undefined,
  });

  const reset =
    resets &&
    new PasswordReset({ users, tokens: resets, accounts: service, limiter, passwordPolicy: start.passwordPolicy ?? {}, send: start.passwordReset!.send, background, now });
  const emailChange =
    emailChanges && new EmailChange({ users, links: emailChanges, accounts: service, limiter, resets, options: start.emailChange!, background, now });
  const deletion = start.accountDeletion ? accountDeletion(start.accountDeletion, { users, credentials, refreshTokens, tokens, accounts: service, now }) : undefined;
  mountJwtRoutes(ctx.resolve(HTTP_ROUTER), service, start.profileFields, { reset, verification, emailChange, deletion });
  documentJwtRoutes(ctx.openapi, start.profileFields, {
    passwordReset: reset !== undefined,
    emailVerification: verification !== undefined,
    emailChange: emailChange !== undefined,
    accountDeletion: deletion !== undefined,
  });
  const publicPaths = new Set(JWT_PUBLIC_PATHS.map(routedPath));
  if (start.githubAuth) {
    const githubPaths = await startGitHubSignIn(ctx, start.githubAuth, {
      users,
      credentials,
      jwt: service,
      sessionSecret: settings.sessionSecret,
      signupDisabled: env.signupDisabled,
      now,
    });
    for (const path of githubPaths) publicPaths.add(routedPath(path));
  }

  const authenticator: Authenticator = {
    async authenticateToken(token) {
      const verified = await tokens.verifyAccessToken(token);
      const { user, signInVersion, endedSignIns } = await users.requireActiveSignIn(verified.userId);
      // The user's sign-ins ended (a new password, logout_all) after this token was issued, or
      // this token's own sign-in did (signed out on its device or from another).
      if (verified.signInVersion !== signInVersion) throw AuthErrors.TOKEN_REVOKED();
      if (verified.signInId !== undefined && endedSignIns.has(verified.signInId)) throw AuthErrors.TOKEN_REVOKED();
      return user;
    },
    async expiresAt(token) {
      const { claims } = await tokens.verifyAccessToken(token);
      return typeof claims.exp === "number" ? new Date(claims.exp * 1000) : undefined;
    },
  };
  const middleware = authenticationMiddleware(
    async (req) => {
      const token = bearerToken(req);
      return token === undefined ? undefined : authenticator.authenticateToken(token);
    },
    (path) => publicPaths.has(routedPath(path)),
  );
  return {
    authenticator,
    accounts: service,
    middleware,
    stop: async () => {
      await background.settled();
    },
  };
}

/** How long a mailed link works, from its option (checked: a wrong one fails the start). */
function linkSeconds(option: string, options: { send?: unknown; expiresIn?: string }, fallback: string): number {
  if (typeof options.send !== "function") throw AuthErrors.MAIL_LINK_OPTION_INVALID(option, "send must be a function that mails the link");
  const seconds = parseDurationSeconds(options.expiresIn ?? fallback);
  if (seconds === undefined) throw AuthErrors.MAIL_LINK_OPTION_INVALID(option, `expiresIn must be a duration like 30m or 1h, got ${JSON.stringify(options.expiresIn)}`);
  return seconds;
}

/** The account-deletion service from its option (checked: a wrong one fails the start). */
function accountDeletion(option: true | AccountDeletionOptions, deps: Omit<ConstructorParameters<typeof AccountDeletion>[0], "recentSignInSeconds">): AccountDeletion {
  const options: AccountDeletionOptions = option === true ? {} : option;
  if (options.onDeleted !== undefined && typeof options.onDeleted !== "function") throw AuthErrors.ACCOUNT_DELETION_OPTION_INVALID("onDeleted must be a function");
  const recentSignInSeconds = parseDurationSeconds(options.recentSignIn ?? "10m");
  if (recentSignInSeconds === undefined) throw AuthErrors.ACCOUNT_DELETION_OPTION_INVALID(`recentSignIn must be a duration like 10m, got ${JSON.stringify(options.recentSignIn)}`);
  return new AccountDeletion({ ...deps, recentSignInSeconds });
}

/**
 * A path as express routes it (case-insensitive, one trailing slash optional), so `POST
 * /Auth/Login/` — which reaches the login route — is exempt from the Bearer check like `/auth/login`.
 */
function routedPath(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith("/") ? lower.slice(0, -1) : lower;
}
