import { randomBytes } from "node:crypto";
import type { RequestHandler } from "express";
import { AUTHENTICATOR, type Authenticator } from "../../contracts/authenticator.js";
import { ACCOUNTS, type Accounts } from "./accounts.js";
import { DATABASE } from "../../contracts/database.js";
import { AUTHENTICATION_MIDDLEWARE, HTTP_ROUTER } from "../../contracts/http.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { readAuthEnvironment, type AuthEnvironment, type AuthProvider } from "./auth-environment.js";
import { authenticationMiddleware, bearerToken, type CredentialResolver } from "./authentication-middleware.js";
import { AuthConfigErrors } from "./errors.js";
import { GitHubClient } from "./github-client.js";
import { GITHUB_PUBLIC_PATHS, mountGitHubRoutes } from "./github-routes.js";
import { GitHubSignIn } from "./github-sign-in.js";
import { GITHUB_FIELDS } from "./github-user-plugin.js";
import { defaultJWTPayload, JwtAuthService, type GenerateJWTPayload } from "./jwt-auth-service.js";
import { JWT_PUBLIC_PATHS, mountJwtRoutes } from "./jwt-routes.js";
import { LoginRateLimiter, type LoginRateLimiterStores, type LoginRateLimits } from "./login-rate-limiter.js";
import { OAuthStateSigner } from "./oauth-state.js";
import { OneTimeCodes } from "./one-time-codes.js";
import { documentJwtRoutes } from "./openapi.js";
import { PasswordCredentials } from "./password-credentials.js";
import { createScryptHasher, PASSWORD_HASHER } from "./password-hasher.js";
import { RefreshTokenStore } from "./refresh-token-store.js";
import { checkProfileFields, type PasswordPolicy } from "./request-body.js";
import { allowedReturnTo, normalizeOrigins } from "./return-to.js";
import type { SessionAuthOptions } from "./session-auth-options.js";
import { TokenService } from "./token-service.js";
import { UserDirectory, type UserModel } from "./user-directory.js";

/** `githubAuth` (SPEC §5.2) plus where the callback may send the browser. */
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

export interface AuthPluginOptions {
  /** The host's user model (its schema uses `baseUserPlugin`; see docs/auth.md). */
  userModel: UserModel;
  /** Access-token claims for a user; default `{admin}`. `sub`, `iss`, `exp`… are always the framework's. */
  generateJWTPayload?: GenerateJWTPayload;
  /**
   * User fields clients may set at sign-up and with `PATCH /auth/me`, e.g. `["name"]`. Anything
   * else in those bodies is refused with 400. Never `admin`, `disabled`, `deleted`, `email`, ids.
   */
  profileFields?: readonly string[];
  passwordPolicy?: PasswordPolicy;
  /** Failed-login and sign-up limits (see LoginRateLimiter). */
  rateLimits?: LoginRateLimits;
  /** Shared counters for multi-instance deployments (rate-limiter-flexible limiters). */
  rateLimiterStores?: LoginRateLimiterStores;
  githubAuth?: GitHubAuthOptions;
  /** Session-based auth (`AUTH_PROVIDER=session-auth`, or `enabled: true` here). */
  sessionAuth?: SessionAuthOptions;
  /** Overrides `AUTH_PROVIDER`. */
  provider?: AuthProvider;
  /** The clock tokens are issued and checked against (tests). */
  now?: () => Date;
}

interface AuthRuntime {
  readonly middleware: RequestHandler;
  readonly authenticator: Authenticator;
  readonly accounts?: Accounts;
  stop?(): Promise<void>;
}

/**
 * Authentication for svc apps: JWT email/password with GitHub sign-in (default), or session-based
 * auth (`AUTH_PROVIDER=session-auth`). Binds `AUTHENTICATION_MIDDLEWARE` (sets `req.user`),
 * `AUTHENTICATOR` (for socket servers) and `PASSWORD_HASHER`; mounts the routes of SPEC §4.2.
 *
 * @example
 * const app = new SvcApp().register(authPlugin({
 *   userModel: User,
 *   profileFields: ["name"],
 *   githubAuth: { clientId, clientSecret, callbackURL, allowedReturnOrigins: ["https://app.example.com"] },
 * }));
 */
export function authPlugin(options: AuthPluginOptions): SvcPlugin {
  let env: AuthEnvironment | undefined;
  let runtime: AuthRuntime | undefined;
  const started = (): AuthRuntime => {
    if (!runtime) throw AuthConfigErrors.NOT_STARTED();
    return runtime;
  };

  const requireAccounts = (): Accounts => {
    const accounts = started().accounts;
    // Under session auth, better-auth owns passwords.
    if (!accounts) throw AuthConfigErrors.NOT_STARTED();
    return accounts;
  };

  return {
    name: "auth",
    dependsOn: ["database"],
    register(ctx) {
      if (!options?.userModel) throw AuthConfigErrors.USER_MODEL_REQUIRED();
      const provider = options.provider ?? (options.sessionAuth?.enabled ? "session-auth" : undefined);
      // Read (and reject) configuration now, so a bad variable fails before any I/O.
      env = readAuthEnvironment(ctx.config, {
        provider,
        sessionAuthSecret: options.sessionAuth?.secret,
        sessionAuthUrl: options.sessionAuth?.baseURL,
      });
      checkProfileFields(options.profileFields ?? []);
      ctx.container.bind(PASSWORD_HASHER, { useFactory: () => createScryptHasher() });
      ctx.container.bind(AUTHENTICATOR, {
        useValue: { authenticateToken: (token: string) => started().authenticator.authenticateToken(token) },
      });
      ctx.container.bind(ACCOUNTS, {
        useValue: {
          createPasswordUser: (fields, password) => requireAccounts().createPasswordUser(fields, password),
          setPassword: (userId, password) => requireAccounts().setPassword(userId, password),
        },
      });
      ctx.container.bind(AUTHENTICATION_MIDDLEWARE, {
        useValue: (req, res, next) => started().middleware(req, res, next),
      });
    },
    async start(ctx) {
      const users = new UserDirectory(options.userModel);
      requireField(users, "email", "baseUserPlugin");
      // Wait for the user model's indexes (the unique email index enforces case-insensitive uniqueness).
      await options.userModel.init();
      if (env!.provider === "session-auth") {
        const { startSessionAuth } = await import("./session-auth.js");
        runtime = await startSessionAuth(ctx, { users, env: env!, options: options.sessionAuth ?? {}, rateLimits: options.rateLimits, stores: options.rateLimiterStores });
      } else {
        runtime = await startJwtAuth(ctx, users, env!, options);
      }
    },
    async stop() {
      await runtime?.stop?.();
      runtime = undefined;
    },
  };
}

async function startJwtAuth(
  ctx: Parameters<NonNullable<SvcPlugin["start"]>>[0],
  users: UserDirectory,
  env: AuthEnvironment,
  options: AuthPluginOptions,
): Promise<AuthRuntime> {
  const settings = env.jwt!;
  const connection = ctx.resolve(DATABASE).connection;
  const now = options.now ?? (() => new Date());
  const hasher = ctx.resolve(PASSWORD_HASHER);
  const tokens = new TokenService({
    accessSecret: settings.tokenSecret,
    refreshSecret: settings.refreshTokenSecret,
    issuer: settings.issuer,
    accessTokenSeconds: settings.accessTokenSeconds,
    refreshTokenSeconds: settings.refreshTokenSeconds,
    now,
  });
  const credentials = new PasswordCredentials(connection);
  const refreshTokens = new RefreshTokenStore(connection, tokens, now);
  await Promise.all([credentials.init(), refreshTokens.init()]);

  const profileFields = checkProfileFields(options.profileFields ?? []);
  const service = new JwtAuthService({
    users,
    credentials,
    refreshTokens,
    tokens,
    hasher,
    limiter: new LoginRateLimiter(options.rateLimits, options.rateLimiterStores),
    // Same KDF parameters as real hashes, so a lookup miss costs what a wrong password costs.
    dummyHash: await hasher.hash(randomBytes(32).toString("base64url")),
    generateJWTPayload: options.generateJWTPayload ?? defaultJWTPayload,
    signupDisabled: env.signupDisabled,
    profileFields,
    passwordPolicy: options.passwordPolicy ?? {},
  });

  const router = ctx.resolve(HTTP_ROUTER);
  mountJwtRoutes(router, service);
  const publicPaths = new Set(JWT_PUBLIC_PATHS);

  if (options.githubAuth) {
    const github = options.githubAuth;
    for (const field of GITHUB_FIELDS) requireField(users, field, "githubUserPlugin");
    const allowedReturnOrigins = normalizeOrigins(github.allowedReturnOrigins ?? []);
    const codes = new OneTimeCodes(connection, 120, now);
    await codes.init();
    const signIn = new GitHubSignIn({
      users,
      credentials,
      client: new GitHubClient(github),
      states: new OAuthStateSigner(settings.sessionSecret, "github", 600, now),
      codes,
      jwt: service,
      allowAccountLinking: github.allowAccountLinking ?? false,
      signupDisabled: env.signupDisabled,
      allowedReturnOrigins,
      defaultReturnTo: github.defaultReturnTo,
    });
    if (github.defaultReturnTo !== undefined) {
      // Validated like a client's returnTo: a misconfiguration fails the start, not a sign-in.
      allowedReturnTo(github.defaultReturnTo, allowedReturnOrigins);
    }
    mountGitHubRoutes(router, signIn, { secureCookies: ctx.config.isProduction });
    for (const path of GITHUB_PUBLIC_PATHS) publicPaths.add(path);
  }
  documentJwtRoutes(ctx.openapi, { github: options.githubAuth !== undefined, profileFields });

  const authenticator: Authenticator = {
    async authenticateToken(token) {
      const verified = await tokens.verifyAccessToken(token);
      return users.requireActive(verified.userId);
    },
  };
  const resolve: CredentialResolver = async (req) => {
    const token = bearerToken(req);
    return token === undefined ? undefined : authenticator.authenticateToken(token);
  };
  return {
    authenticator,
    accounts: service,
    middleware: authenticationMiddleware(resolve, (path) => publicPaths.has(path)),
  };
}

function requireField(users: UserDirectory, field: string, plugin: string): void {
  if (!users.model.schema.path(field)) throw AuthConfigErrors.USER_MODEL_FIELD_MISSING(field, plugin);
}
