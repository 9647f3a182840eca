import { createScryptHasher } from "../../adapters/password-hasher/scrypt.js";
import { ACCOUNTS } from "../../contracts/accounts.js";
import { AUTHENTICATOR } from "../../contracts/authenticator.js";
import { DATABASE } from "../../contracts/database.js";
import { AUTHENTICATION_MIDDLEWARE } from "../../contracts/http.js";
import { PASSWORD_HASHER } from "../../contracts/password-hasher.js";
import type { RequestUser } from "../../contracts/request-user.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { startedService } from "../../kernel/started-service.js";
import { readAuthEnvironment, type AuthEnvironment, type AuthProvider } from "./auth-environment.js";
import { developmentDefaultsWarning } from "./development-secrets.js";
import type { AuthRuntime } from "./auth-runtime.js";
import { AuthErrors } from "./errors.js";
import type { GitHubAuthOptions } from "./github/github-auth-options.js";
import type { LoginRateLimiterStores, LoginRateLimits } from "./http/login-rate-limiter.js";
import type { GenerateJWTPayload } from "./jwt/jwt-auth-service.js";
import type { PasswordPolicy } from "./jwt/password-policy.js";
import type { AccountDeletionOptions } from "./jwt/account-deletion.js";
import type { EmailChangeOptions } from "./jwt/email-change.js";
import type { EmailVerificationOptions } from "./jwt/email-verification.js";
import type { PasswordResetOptions } from "./jwt/password-reset.js";
import { startJwtAuth } from "./jwt/start-jwt-auth.js";
import type { SessionAuthOptions } from "./session/session-auth-options.js";
import type { ProfileFieldSchemas } from "./http/request-bodies.js";
import { profileFieldSchemas } from "./users/profile-field-schemas.js";
import { checkProfileFields } from "./users/profile-fields.js";
import { UserDirectory } from "./users/user-directory.js";
import type { CheckedUserModel, UserModel } from "./users/user-model.js";

/**
 * Options of `authPlugin`. `M` is the user model's type, inferred from `userModel`.
 *
 * @example
 * const options: AuthPluginOptions = { userModel: User, profileFields: ["name"] };
 */
export interface AuthPluginOptions<M extends UserModel = UserModel> {
  /**
   * The host's user model: any mongoose model whose schema uses `baseUserPlugin` (see
   * docs/auth.md). A value that is not a model, or a model whose document type declares auth's
   * fields wrongly (or, when written by hand, lacks `email`), is a type error.
   */
  userModel: CheckedUserModel<M>;
  /** Access-token claims for a user; default `{admin}`. `sub`, `iss`, `exp`… are always the framework's. */
  generateJWTPayload?: GenerateJWTPayload;
  /**
   * User fields clients may set at sign-up and with `PATCH /auth/me`, e.g. `["name"]`, each checked
   * against its type on the user schema. Anything else in those bodies is refused with 400. Never
   * `admin`, `disabled`, `deleted`, `email`, ids; a field not on the schema fails the start.
   */
  profileFields?: readonly string[];
  passwordPolicy?: PasswordPolicy;
  /** Failed-login and sign-up limits (see LoginRateLimiter). */
  rateLimits?: LoginRateLimits;
  /** Shared counters for multi-instance deployments (rate-limiter-flexible limiters). */
  rateLimiterStores?: LoginRateLimiterStores;
  githubAuth?: GitHubAuthOptions;
  /**
   * Session-based auth settings. Giving them selects session auth unless `AUTH_PROVIDER` is set
   * (`enabled: true` wins over `AUTH_PROVIDER`; `enabled: false` leaves the choice to it, default `jwt`).
   */
  sessionAuth?: SessionAuthOptions;
  /**
   * Called once for each account created by `POST /auth/signup` (JWT provider), after it exists
   * and its tokens are issued: welcome mails, default records. It is not awaited by the sign-up,
   * and a throw or rejection is logged, never answered.
   */
  onSignup?: (user: RequestUser) => unknown;
  /**
   * "Forgot your password?" by mail (JWT provider): mounts `POST /auth/password_reset` and
   * `POST /auth/password_reset/confirm`; `send` mails the link the app builds from the token.
   * Off by default: svc cannot know how the app sends mail nor where its reset page is.
   */
  passwordReset?: PasswordResetOptions;
  /**
   * Email verification (JWT provider; the user model needs `emailVerificationPlugin`): a link is
   * mailed at sign-up and on `POST /auth/verify_email/resend`; `POST /auth/verify_email {token}`
   * stamps `emailVerifiedAt`. Off by default, like `passwordReset`.
   */
  emailVerification?: EmailVerificationOptions;
  /**
   * Changing the sign-in email (JWT provider): mounts `POST /auth/change_email {newEmail,
   * currentPassword}`, which mails a confirmation link to the new address, and `POST
   * /auth/change_email/confirm {token}`, which makes it the account's. Off by default, like
   * `passwordReset`; without it the email is the admin's to change.
   */
  emailChange?: EmailChangeOptions;
  /**
   * Lets signed-in users delete their own account (JWT provider): mounts `POST
   * /auth/delete_account {currentPassword}`. `true` for the defaults, or `{onDeleted}` to remove
   * the user's data. Off by default: some products manage accounts for their users.
   */
  accountDeletion?: boolean | AccountDeletionOptions;
  /** Overrides `AUTH_PROVIDER`. */
  provider?: AuthProvider;
  /** The clock tokens are issued and checked against (tests). */
  now?: () => Date;
}

/**
 * Authentication for svc apps: JWT email/password with GitHub sign-in (default), or session-based
 * auth (`AUTH_PROVIDER=session-auth`). Binds `AUTHENTICATION_MIDDLEWARE` (sets `req.user`),
 * `AUTHENTICATOR` (for socket servers), `PASSWORD_HASHER` (scrypt) and, under JWT, `ACCOUNTS`;
 * mounts the routes of SPEC §4.2. The first three exist only once the plugin started: resolving
 * them earlier throws `AUTH_NOT_STARTED`.
 *
 * @example
 * const app = new SvcApp().register(authPlugin({
 *   userModel: User,
 *   profileFields: ["name"],
 *   githubAuth: { clientId, clientSecret, callbackURL, allowedReturnOrigins: ["https://app.example.com"] },
 * }));
 */
export function authPlugin<M extends UserModel>(options: AuthPluginOptions<M>): SvcPlugin {
  let env: AuthEnvironment | undefined;
  let profileFields: ProfileFieldSchemas = {};
  let runtime: AuthRuntime | undefined;

  return {
    name: "auth",
    dependsOn: ["database"],
    register(ctx) {
      if (!options?.userModel) throw AuthErrors.USER_MODEL_REQUIRED();
      const sessionAuth = options.sessionAuth;
      const provider = options.provider ?? (sessionAuth?.enabled === true ? "session-auth" : undefined);
      // Read (and reject) configuration now, so a bad variable fails before any I/O.
      env = readAuthEnvironment(ctx.config, {
        provider,
        // Giving session settings asks for sessions, unless `enabled: false` or AUTH_PROVIDER says otherwise.
        defaultProvider: sessionAuth && sessionAuth.enabled !== false ? "session-auth" : "jwt",
        sessionAuthSecret: options.sessionAuth?.secret,
        sessionAuthUrl: options.sessionAuth?.baseURL,
      });
      if (env.developmentDefaults) {
        // On the embedded database this is the ordinary development start: a note. With a real
        // database it may be a server deployed without NODE_ENV=production: a warning.
        const realDatabase = [ctx.config.env["DB_URI"], ctx.config.env["DB_CONNECTION"]].some((uri) => (uri ?? "").trim() !== "");
        const message = developmentDefaultsWarning(env.developmentDefaults);
        if (realDatabase) ctx.logger.warn(message);
        else ctx.logger.info(message);
      }
      profileFields = profileFieldSchemas(options.userModel.schema, checkProfileFields(options.profileFields ?? []));
      ctx.container.bind(PASSWORD_HASHER, { useFactory: () => createScryptHasher() });
      ctx.container.bind(AUTHENTICATOR, startedService(() => runtime?.authenticator, AuthErrors.NOT_STARTED));
      ctx.container.bind(AUTHENTICATION_MIDDLEWARE, startedService(() => runtime?.middleware, AuthErrors.NOT_STARTED));
      // Under session auth better-auth owns passwords: nothing to administer, so nothing is bound.
      if (env.provider === "jwt") ctx.container.bind(ACCOUNTS, startedService(() => runtime?.accounts, AuthErrors.NOT_STARTED));
    },
    async start(ctx) {
      const users = new UserDirectory(options.userModel);
      users.requireField("email", "baseUserPlugin");
      ctx.resolve(DATABASE).checkModel(options.userModel, "authPlugin userModel");
      // Wait for the user model's indexes (the unique email index enforces case-insensitive uniqueness).
      await options.userModel.init();
      if (env!.provider === "session-auth") {
        // better-auth has its own reset flow; a JWT-only option must not look like it works.
        if (options.passwordReset) throw AuthErrors.MAIL_LINK_OPTION_INVALID("passwordReset", "it needs the JWT provider (under session auth, better-auth resets passwords)");
        if (options.emailVerification) throw AuthErrors.MAIL_LINK_OPTION_INVALID("emailVerification", "it needs the JWT provider (under session auth, better-auth verifies emails)");
        if (options.emailChange) throw AuthErrors.MAIL_LINK_OPTION_INVALID("emailChange", "it needs the JWT provider");
        if (options.accountDeletion) throw AuthErrors.ACCOUNT_DELETION_OPTION_INVALID("it needs the JWT provider (under session auth, better-auth owns accounts)");
        // Loaded only when used: better-auth is large.
        const { startSessionAuth } = await import("./session/session-auth.js");
        runtime = await startSessionAuth(ctx, {
          users,
          env: env!,
          profileFields: Object.keys(profileFields),
          options: options.sessionAuth ?? {},
          rateLimits: options.rateLimits,
          stores: options.rateLimiterStores,
        });
      } else {
        runtime = await startJwtAuth(ctx, {
          users,
          env: env!,
          profileFields,
          passwordPolicy: options.passwordPolicy,
          generateJWTPayload: options.generateJWTPayload,
          rateLimits: options.rateLimits,
          rateLimiterStores: options.rateLimiterStores,
          githubAuth: options.githubAuth,
          onSignup: options.onSignup,
          passwordReset: options.passwordReset,
          emailVerification: options.emailVerification,
          emailChange: options.emailChange,
          accountDeletion: options.accountDeletion,
          now: options.now,
        });
      }
    },
    async stop() {
      await runtime?.stop?.();
      runtime = undefined;
    },
  };
}
