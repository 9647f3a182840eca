import { mongodbAdapter } from "@better-auth/mongo-adapter";
import { betterAuth } from "better-auth";
import { APIError as BetterAuthError } from "better-auth/api";
import { bearer } from "better-auth/plugins";
import type { Authenticator } from "../../../contracts/authenticator.js";
import { DATABASE, isDuplicateKeyError } from "../../../contracts/database.js";
import { HTTP_ROUTER } from "../../../contracts/http.js";
import type { RequestUser } from "../../../contracts/request-user.js";
import type { PluginContext } from "../../../kernel/plugin.js";
import { throttleStoreOf } from "../../throttle/index.js";
import type { AuthEnvironment } from "../auth-environment.js";
import type { AuthRuntime } from "../auth-runtime.js";
import { AuthErrors } from "../errors.js";
import { authenticationMiddleware, bearerToken } from "../http/authentication-middleware.js";
import { LoginRateLimiter, type LoginRateLimiterStores, type LoginRateLimits } from "../http/login-rate-limiter.js";
import { normalizeOrigins } from "../http/return-to.js";
import { DEFAULT_FEDERATED_FIELD } from "../users/federated-identity-plugin.js";
import type { UserDirectory } from "../users/user-directory.js";
import { toBetterAuth } from "./better-auth-errors.js";
import { requestLimitStorage } from "./request-limit-storage.js";
import type { SessionAuthOptions } from "./session-auth-options.js";
import { documentSessionRoutes } from "./session-openapi.js";
import { CLIENT_IP_HEADER, mountSessionRoutes, SESSION_AUTH_BASE_PATH, SESSION_PASSWORD_POLICY } from "./session-routes.js";

/** The social providers SPEC §4.2 names for `GET /api/auth/signin/{provider}`. */
/** better-auth's warnings for a failed email sign-in (answered 401 AUTH_INVALID_CREDENTIALS). */
const FAILED_SIGN_IN = new Set(["User not found", "Password not found", "Invalid password"]);

export const SESSION_SOCIAL_PROVIDERS = ["github", "google", "apple"] as const;
type SocialProvider = (typeof SESSION_SOCIAL_PROVIDERS)[number];

/** Methods that change nothing: a cookie may authenticate them from any origin (CORS guards the answer). */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** better-auth's collections, prefixed so they never collide with the host's. */
const COLLECTIONS = {
  user: "svc_session_users",
  session: "svc_sessions",
  account: "svc_session_accounts",
  verification: "svc_session_verifications",
};

/** A better-auth session as its adapter lists them (the fields svc reads). */
interface BetterAuthSession {
  readonly id: string;
  readonly token: string;
  readonly createdAt: Date | string;
  readonly updatedAt: Date | string;
  readonly expiresAt: Date | string;
  readonly ipAddress?: string | null;
  readonly userAgent?: string | null;
}

/** The session a request carries, resolved to the host user. */
export interface ResolvedSession {
  readonly user: RequestUser;
  readonly setCookies: string[];
  readonly expiresAt: Date;
  /** better-auth's ids of the session and of its user. */
  readonly sessionId: string;
  readonly authUserId: string;
}

export interface SessionAuthStartOptions {
  users: UserDirectory;
  env: AuthEnvironment;
  /** The host's `profileFields`: the user's own fields, which a sign-up's `name` may fill. */
  profileFields: readonly string[];
  options: SessionAuthOptions;
  rateLimits?: LoginRateLimits;
  stores?: LoginRateLimiterStores;
}

/**
 * Session-based auth on better-auth (with its MongoDB adapter on the app's connection), mapped to
 * SPEC §4.2's paths under `/api/auth`. better-auth owns credentials and sessions (its own
 * collections); every better-auth user is tied to one host user through the federated-identity
 * field, so `req.user` is the host's user document exactly as under the JWT provider.
 *
 * @example
 * const runtime = await startSessionAuth(ctx, { users, env, options: { trustedOrigins: ["https://app.example.com"] } });
 */
export async function startSessionAuth(ctx: PluginContext, start: SessionAuthStartOptions): Promise<AuthRuntime> {
  const { users, env, options } = start;
  const settings = env.sessionAuth!;
  const field = options.federatedField ?? DEFAULT_FEDERATED_FIELD;
  users.requireField(field, "federatedIdentityPlugin");
  // The database plugin started first (dependsOn), so its connection is open.
  const connection = ctx.resolve(DATABASE).connection;
  const db = connection.getClient().db(connection.name);

  const baseOrigin = new URL(settings.url).origin;
  const trustedOrigins = normalizeOrigins([baseOrigin, ...(options.trustedOrigins ?? [])]);
  const socialProviders: Partial<Record<SocialProvider, { clientId: string; clientSecret: string }>> = {};
  for (const provider of SESSION_SOCIAL_PROVIDERS) {
    const given = options[`${provider}OAuth`];
    // `process.env.GITHUB_CLIENT_ID!` compiles whether or not it is set: fail the start, not every sign-in.
    for (const key of ["clientId", "clientSecret"] as const) {
      const value: unknown = given?.[key];
      if (given && (typeof value !== "string" || value.trim() === "")) throw AuthErrors.OAUTH_OPTION_INVALID(`sessionAuth.${provider}OAuth.${key}`, value);
    }
    const credentials = given ?? settings.providers[provider];
    if (credentials) socialProviders[provider] = { clientId: credentials.clientId, clientSecret: credentials.clientSecret };
  }
  const isProduction = ctx.config.isProduction;
  const logger = ctx.logger;

  /**
   * The host user for a better-auth user, created on first sign-in. The name given at sign-up (or
   * by the social provider) becomes the host user's `name` when that is one of the host's profile
   * fields — the field a user sets for themselves — and the schema accepts it; otherwise the user
   * is created without it rather than refused.
   */
  /** Whether the host's schema accepts `name` (mongoose 10 drops `validateSync`). */
  const nameIsValid = (name: string): Promise<boolean> =>
    new users.model({ name }).validate(["name"]).then(
      () => true,
      () => false,
    );
  const hostUserFor = async (authUserId: string, authUser: { email?: string; name?: unknown } | null | undefined): Promise<RequestUser> => {
    const existing = await users.findOneIncludingDeleted({ [field]: authUserId });
    if (existing) return users.assertActive(existing);
    const email = authUser?.email?.trim().toLowerCase();
    const name = typeof authUser?.name === "string" ? authUser.name.trim() : "";
    const fields: Record<string, unknown> = { email, [field]: authUserId };
    if (name !== "" && start.profileFields.includes("name") && (await nameIsValid(name))) fields.name = name;
    try {
      const created = await users.model.create(fields);
      return users.assertActive(await users.findById(String(created._id)));
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Another first sign-in of this identity created it meanwhile: that one is its host user.
      const raced = await users.findOneIncludingDeleted({ [field]: authUserId });
      if (raced) return users.assertActive(raced);
      // The email belongs to a host user who did not come from session auth (e.g. seeded or
      // migrated): never attach a session identity to it by email alone.
      throw AuthErrors.ACCOUNT_EXISTS();
    }
  };

  const auth = betterAuth({
    appName: "svc",
    baseURL: settings.url,
    basePath: SESSION_AUTH_BASE_PATH,
    secret: settings.secret,
    database: mongodbAdapter(db),
    trustedOrigins,
    telemetry: { enabled: false },
    emailAndPassword: {
      enabled: true,
      disableSignUp: env.signupDisabled,
      // The routes apply SESSION_PASSWORD_POLICY first, in characters; better-auth counts UTF-16
      // units, so its maximum allows two per character and never refuses what the policy accepts.
      minPasswordLength: SESSION_PASSWORD_POLICY.minLength,
      maxPasswordLength: SESSION_PASSWORD_POLICY.maxLength * 2,
    },
    socialProviders,
    user: { modelName: COLLECTIONS.user },
    session: {
      modelName: COLLECTIONS.session,
      expiresIn: options.sessionExpiresInSeconds ?? 7 * 86_400,
      updateAge: 86_400,
    },
    account: { modelName: COLLECTIONS.account, accountLinking: { enabled: false } },
    verification: { modelName: COLLECTIONS.verification },
    // Session tokens are also accepted as `Authorization: Bearer`, signed (a raw token copied
    // from the database is not enough).
    plugins: [bearer({ requireSignature: true })],
    rateLimit: {
      enabled: true,
      // Counted where every svc limit is: THROTTLE_STORE (Redis with CACHE_URL, else memory).
      customStorage: requestLimitStorage(throttleStoreOf(ctx.container), ctx.logger),
      window: 60,
      max: 100,
      // Sign-in and sign-up are throttled by our LoginRateLimiter (failures per account and per
      // IP, sign-ups per IP), the same limits as the JWT provider.
      customRules: { "/sign-in/email": false, "/sign-up/email": false },
    },
    advanced: {
      useSecureCookies: isProduction,
      // better-auth skips origin checks when NODE_ENV=test; we never do.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", secure: isProduction },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    logger: {
      level: "warn",
      log: (level, message, ...details: unknown[]) => {
        // A sign-up that lost a race for its email on the unique index is answered 409
        // AUTH_EMAIL_TAKEN like a later one: better-auth still logs it as an error. A failed
        // sign-in is a 401 the request log shows; better-auth's own warning would tell log
        // readers whether the email has an account, which the answer itself does not.
        const expected = (level === "error" && details.some((detail) => isDuplicateKeyError(detail))) || (level === "warn" && FAILED_SIGN_IN.has(message));
        const write = expected ? logger.debug : level === "error" ? logger.error : level === "warn" ? logger.warn : logger.debug;
        write.call(logger, `session-auth: ${message}`);
      },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            if (env.signupDisabled) throw toBetterAuth(AuthErrors.SIGNUP_DISABLED());
            const email = typeof user.email === "string" ? user.email.trim().toLowerCase() : undefined;
            if (email && (await users.findOneIncludingDeleted({ email }))) {
              throw toBetterAuth(AuthErrors.ACCOUNT_EXISTS());
            }
          },
        },
      },
      session: {
        create: {
          // Every new session (sign-up, sign-in, social callback) is refused for disabled or
          // deleted host users, and provisions the host user on first sign-in.
          before: async (session, endpoint) => {
            try {
              const authUser = await endpoint?.context.internalAdapter.findUserById(session.userId);
              await hostUserFor(session.userId, authUser);
            } catch (error) {
              throw toBetterAuth(error);
            }
          },
        },
      },
    },
  });

  const context = await auth.$context;
  const sessionCookieName = context.authCookies.sessionToken.name;
  const limiter = new LoginRateLimiter(start.rateLimits, start.stores, throttleStoreOf(ctx.container));

  /** Resolves better-auth's session for these headers to the host user (or undefined). */
  const resolveSession = async (headers: Headers): Promise<ResolvedSession | undefined> => {
    let result;
    try {
      result = await auth.api.getSession({ headers, returnHeaders: true });
    } catch (error) {
      // better-auth refuses (401) a session that a sign-out deleted while this request extended
      // it: no session, as for the next request, not an error of ours.
      if (error instanceof BetterAuthError && error.statusCode === 401) return undefined;
      throw error;
    }
    const session = result.response;
    if (!session) return undefined;
    const user = await users.findOneIncludingDeleted({ [field]: session.user.id });
    return {
      user: users.assertActive(user),
      setCookies: result.headers.getSetCookie(),
      expiresAt: new Date(session.session.expiresAt),
      sessionId: session.session.id,
      authUserId: session.user.id,
    };
  };

  const sessionOfToken = async (token: string) => {
    if (typeof token !== "string" || token.length === 0 || token.length > 4096) throw AuthErrors.SESSION_INVALID();
    const resolved = await resolveSession(new Headers({ authorization: `Bearer ${token}` }));
    if (!resolved) throw AuthErrors.SESSION_INVALID();
    return resolved;
  };
  const authenticator: Authenticator = {
    async authenticateToken(token) {
      return (await sessionOfToken(token)).user;
    },
    async expiresAt(token) {
      return (await sessionOfToken(token)).expiresAt;
    },
  };

  const middleware = authenticationMiddleware(
    async (req, res) => {
      const token = bearerToken(req);
      const hasCookie = typeof req.headers.cookie === "string" && req.headers.cookie.includes(sessionCookieName);
      if (token === undefined && !hasCookie) return undefined;
      if (token === "") throw AuthErrors.SESSION_INVALID();
      // A cookie goes with every request the browser makes, whichever site's page made it (a
      // sibling subdomain is even the same site for SameSite=Lax): a state-changing request it
      // authenticates must come from a trusted origin, as on the session routes. Requests with no
      // Origin are no browser's cross-origin request; a Bearer token is never sent on its own.
      if (token === undefined && !SAFE_METHODS.has(req.method) && req.headers.origin !== undefined && !trustedOrigins.includes(req.headers.origin)) {
        throw AuthErrors.ORIGIN_NOT_TRUSTED();
      }
      const headers = new Headers();
      if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      else headers.set("cookie", req.headers.cookie!);
      const resolved = await resolveSession(headers);
      if (!resolved) throw AuthErrors.SESSION_INVALID();
      // A session extended on use gets its cookie extended too.
      if (token === undefined) for (const cookie of resolved.setCookies) res.append("Set-Cookie", cookie);
      return resolved.user;
    },
    // Matched as express routes (case-insensitively), so `/API/Auth/signin/email` is exempt too.
    (path) => {
      const routed = path.toLowerCase();
      return routed === SESSION_AUTH_BASE_PATH || routed.startsWith(`${SESSION_AUTH_BASE_PATH}/`);
    },
  );

  mountSessionRoutes(ctx.resolve(HTTP_ROUTER), {
    handler: (request) => auth.handler(request),
    baseOrigin,
    trustedOrigins,
    limiter,
    providers: Object.keys(socialProviders),
    resolveSession,
    emailTaken: async (email) => (await context.internalAdapter.findUserByEmail(email)) !== null,
    sessionsOf: async (authUserId) => {
      const now = Date.now();
      const sessions = (await context.internalAdapter.listSessions(authUserId)) as BetterAuthSession[];
      return sessions.filter((session) => new Date(session.expiresAt).getTime() > now).sort((a, b) => new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime());
    },
    endSession: (token) => context.internalAdapter.deleteSession(token),
    present: (user) => users.toResponse(user),
  });
  documentSessionRoutes(ctx.openapi);
  return { middleware, authenticator };
}
