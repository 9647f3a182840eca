import { mongodbAdapter } from "@better-auth/mongo-adapter";
import { betterAuth } from "better-auth";
import { APIError as BetterAuthError } from "better-auth/api";
import { bearer } from "better-auth/plugins";
import type { Request, RequestHandler, Response, Router } from "express";
import type { Authenticator } from "../../contracts/authenticator.js";
import { DATABASE } from "../../contracts/database.js";
import { HTTP_ROUTER } from "../../contracts/http.js";
import type { RequestUser } from "../../contracts/request-user.js";
import { APIError, isAPIError } from "../../kernel/api-error.js";
import type { PluginContext } from "../../kernel/plugin.js";
import type { AuthEnvironment } from "./auth-environment.js";
import { authenticationMiddleware, bearerToken } from "./authentication-middleware.js";
import { isDuplicateKey } from "./duplicate-key.js";
import { AuthConfigErrors, AuthErrors, type AuthErrorKey } from "./errors.js";
import { DEFAULT_FEDERATED_FIELD } from "./federated-identity-plugin.js";
import { LoginRateLimiter, type LoginRateLimiterStores, type LoginRateLimits } from "./login-rate-limiter.js";
import { documentSessionRoutes } from "./session-openapi.js";
import type { SessionAuthOptions } from "./session-auth-options.js";
import { normalizeOrigins } from "./return-to.js";
import { authRoute, clientIp } from "./route-helpers.js";
import type { UserDirectory } from "./user-directory.js";

/** Where SPEC §4.2's session endpoints live. */
export const SESSION_AUTH_BASE_PATH = "/api/auth";

/** The social providers SPEC §4.2 names for `GET /api/auth/signin/{provider}`. */
export const SESSION_SOCIAL_PROVIDERS = ["github", "google", "apple"] as const;
type SocialProvider = (typeof SESSION_SOCIAL_PROVIDERS)[number];

// Set by us on every request we hand to better-auth (the client's own value is dropped), so its
// rate limiter and session records see the real client IP.
const CLIENT_IP_HEADER = "x-svc-client-ip";

/** better-auth's collections, prefixed so they never collide with the host's. */
const COLLECTIONS = {
  user: "svc_session_users",
  session: "svc_sessions",
  account: "svc_session_accounts",
  verification: "svc_session_verifications",
};

export interface SessionAuthStartOptions {
  users: UserDirectory;
  env: AuthEnvironment;
  options: SessionAuthOptions;
  rateLimits?: LoginRateLimits;
  stores?: LoginRateLimiterStores;
}

interface SessionRuntime {
  readonly middleware: RequestHandler;
  readonly authenticator: Authenticator;
}

/** better-auth error codes that mean the same as one of ours. */
const ERROR_MAP: Record<string, AuthErrorKey> = {
  USER_ALREADY_EXISTS: "EMAIL_TAKEN",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "EMAIL_TAKEN",
  INVALID_EMAIL_OR_PASSWORD: "INVALID_CREDENTIALS",
  INVALID_PASSWORD: "INVALID_CREDENTIALS",
  INVALID_ORIGIN: "ORIGIN_NOT_TRUSTED",
  MISSING_OR_NULL_ORIGIN: "ORIGIN_NOT_TRUSTED",
  CROSS_SITE_NAVIGATION_LOGIN_BLOCKED: "ORIGIN_NOT_TRUSTED",
  INVALID_CALLBACK_URL: "RETURN_TO_NOT_ALLOWED",
  INVALID_REDIRECT_URL: "RETURN_TO_NOT_ALLOWED",
  INVALID_ERROR_CALLBACK_URL: "RETURN_TO_NOT_ALLOWED",
  INVALID_NEW_USER_CALLBACK_URL: "RETURN_TO_NOT_ALLOWED",
  PASSWORD_TOO_SHORT: "WEAK_PASSWORD",
  PASSWORD_TOO_LONG: "WEAK_PASSWORD",
  INVALID_EMAIL: "INVALID_BODY",
  VALIDATION_ERROR: "INVALID_BODY",
  EMAIL_SIGN_UP_DISABLED: "SIGNUP_DISABLED",
  SIGN_UP_DISABLED: "SIGNUP_DISABLED",
};

/**
 * Session-based auth on better-auth (with its MongoDB adapter on the app's connection), mapped to
 * SPEC §4.2's paths under `/api/auth`. better-auth owns credentials and sessions (its own
 * collections); every better-auth user is tied to one host user through the federated-identity
 * field, so `req.user` is the host's user document exactly as under the JWT provider.
 *
 * @example
 * const runtime = await startSessionAuth(ctx, { users, env, options: { trustedOrigins: ["https://app.example.com"] } });
 */
export async function startSessionAuth(ctx: PluginContext, start: SessionAuthStartOptions): Promise<SessionRuntime> {
  const { users, env, options } = start;
  const settings = env.sessionAuth!;
  const field = options.federatedField ?? DEFAULT_FEDERATED_FIELD;
  if (!users.model.schema.path(field)) throw AuthConfigErrors.USER_MODEL_FIELD_MISSING(field, "federatedIdentityPlugin");
  const db = ctx.resolve(DATABASE).connection.db;
  if (!db) throw AuthConfigErrors.NOT_STARTED();

  const baseOrigin = new URL(settings.url).origin;
  const trustedOrigins = normalizeOrigins([baseOrigin, ...(options.trustedOrigins ?? [])]);
  const socialProviders: Partial<Record<SocialProvider, { clientId: string; clientSecret: string }>> = {};
  for (const provider of SESSION_SOCIAL_PROVIDERS) {
    const credentials = options[`${provider}OAuth`] ?? settings.providers[provider];
    if (credentials) socialProviders[provider] = { clientId: credentials.clientId, clientSecret: credentials.clientSecret };
  }
  const isProduction = ctx.config.isProduction;
  const logger = ctx.logger;

  /** The host user for a better-auth user, created on first sign-in. */
  const hostUserFor = async (authUserId: string, email: string | undefined): Promise<RequestUser> => {
    const existing = await users.findOneIncludingDeleted({ [field]: authUserId });
    if (existing) return users.assertActive(existing);
    try {
      const created = await users.model.create({ email, [field]: authUserId });
      return users.assertActive(await users.findById(String(created._id)));
    } catch (error) {
      // The email belongs to a host user who did not come from session auth (e.g. seeded or
      // migrated): never attach a session identity to it by email alone.
      if (isDuplicateKey(error)) throw AuthErrors.ACCOUNT_EXISTS();
      throw error;
    }
  };
  const toBetterAuthError = (error: unknown): unknown =>
    isAPIError(error)
      ? new BetterAuthError(error.status === 401 ? "UNAUTHORIZED" : error.status === 403 ? "FORBIDDEN" : "CONFLICT", {
          message: error.title,
          code: error.code.replace(/^AUTH_/, ""),
        })
      : error;

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
      minPasswordLength: 8,
      maxPasswordLength: 256,
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
      storage: "memory",
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
      log: (level, message) => {
        const write = level === "error" ? logger.error : level === "warn" ? logger.warn : logger.debug;
        write.call(logger, `session-auth: ${message}`);
      },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            if (env.signupDisabled) throw toBetterAuthError(AuthErrors.SIGNUP_DISABLED());
            const email = typeof user.email === "string" ? user.email.trim().toLowerCase() : undefined;
            if (email && (await users.findOneIncludingDeleted({ email }))) {
              throw toBetterAuthError(AuthErrors.ACCOUNT_EXISTS());
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
              await hostUserFor(session.userId, authUser?.email?.trim().toLowerCase());
            } catch (error) {
              throw toBetterAuthError(error);
            }
          },
        },
      },
    },
  });

  const context = await auth.$context;
  const sessionCookieName = context.authCookies.sessionToken.name;
  const limiter = new LoginRateLimiter(start.rateLimits, start.stores);

  /** Resolves better-auth's session for these headers to the host user (or undefined). */
  const resolveSession = async (headers: Headers): Promise<{ user: RequestUser; setCookies: string[] } | undefined> => {
    const result = await auth.api.getSession({ headers, returnHeaders: true });
    const session = result.response;
    if (!session) return undefined;
    const user = await users.findOneIncludingDeleted({ [field]: session.user.id });
    return { user: users.assertActive(user), setCookies: result.headers.getSetCookie() };
  };

  const authenticator: Authenticator = {
    async authenticateToken(token) {
      if (typeof token !== "string" || token.length === 0 || token.length > 4096) throw AuthErrors.SESSION_INVALID();
      const resolved = await resolveSession(new Headers({ authorization: `Bearer ${token}` }));
      if (!resolved) throw AuthErrors.SESSION_INVALID();
      return resolved.user;
    },
  };

  const middleware = authenticationMiddleware(
    async (req, res) => {
      const token = bearerToken(req);
      const hasCookie = typeof req.headers.cookie === "string" && req.headers.cookie.includes(sessionCookieName);
      if (token === undefined && !hasCookie) return undefined;
      if (token === "") throw AuthErrors.SESSION_INVALID();
      const headers = new Headers();
      if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      else headers.set("cookie", req.headers.cookie!);
      const resolved = await resolveSession(headers);
      if (!resolved) throw AuthErrors.SESSION_INVALID();
      // A session extended on use gets its cookie extended too.
      if (token === undefined) for (const cookie of resolved.setCookies) res.append("Set-Cookie", cookie);
      return resolved.user;
    },
    (path) => path === SESSION_AUTH_BASE_PATH || path.startsWith(`${SESSION_AUTH_BASE_PATH}/`),
  );

  mountSessionRoutes(ctx.resolve(HTTP_ROUTER), {
    handler: (request) => auth.handler(request),
    baseOrigin,
    trustedOrigins,
    limiter,
    providers: Object.keys(socialProviders),
    resolveSession,
    present: (user) => users.toResponse(user),
  });
  documentSessionRoutes(ctx.openapi);
  return { middleware, authenticator };
}

interface SessionRouteDeps {
  handler: (request: globalThis.Request) => Promise<globalThis.Response>;
  baseOrigin: string;
  trustedOrigins: readonly string[];
  limiter: LoginRateLimiter;
  providers: readonly string[];
  resolveSession: (headers: Headers) => Promise<{ user: RequestUser; setCookies: string[] } | undefined>;
  present: (user: RequestUser) => Record<string, unknown>;
}

/** What better-auth answered, after our error mapping. */
interface Forwarded {
  status: number;
  body: unknown;
  headers: Headers;
}

function mountSessionRoutes(router: Router, deps: SessionRouteDeps): void {
  const base = SESSION_AUTH_BASE_PATH;

  /** Hands an express request to better-auth at `path`, as JSON. */
  const forward = async (req: Request, path: string, init: { method?: string; body?: unknown; origin?: string } = {}): Promise<Forwarded> => {
    const method = init.method ?? req.method;
    const url = new URL(`${base}${path}`, deps.baseOrigin);
    const query = req.originalUrl.indexOf("?");
    if (query >= 0 && method === "GET") url.search = req.originalUrl.slice(query);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || ["host", "content-length", "connection", "transfer-encoding", CLIENT_IP_HEADER].includes(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    headers.set(CLIENT_IP_HEADER, clientIp(req));
    if (init.origin) headers.set("origin", init.origin);
    let body: string | undefined;
    if (method !== "GET" && method !== "HEAD") {
      body = JSON.stringify(init.body ?? req.body ?? {});
      headers.set("content-type", "application/json");
    }
    const response = await deps.handler(new globalThis.Request(url, { method, headers, body, redirect: "manual" }));
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.status >= 400) throw mapError(response.status, parsed);
    return { status: response.status, body: parsed, headers: response.headers };
  };

  const passCookies = (res: Response, forwarded: Forwarded): void => {
    for (const cookie of forwarded.headers.getSetCookie()) res.append("Set-Cookie", cookie);
  };

  /** State-changing requests from a browser must come from a trusted origin. */
  const checkOrigin = (req: Request): void => {
    const origin = req.headers.origin;
    if (origin !== undefined && !deps.trustedOrigins.includes(origin)) throw AuthErrors.ORIGIN_NOT_TRUSTED();
  };

  /** Sign-up and sign-in answer `{data: {token, userId, user}}`: the session (cookie or Bearer). */
  const signedIn = async (res: Response, forwarded: Forwarded, status: number): Promise<void> => {
    passCookies(res, forwarded);
    const token = forwarded.headers.get("set-auth-token");
    const resolved = token ? await deps.resolveSession(new Headers({ authorization: `Bearer ${token}` })) : undefined;
    if (!token || !resolved) throw AuthErrors.SESSION_INVALID();
    res.status(status).json({ data: { token, userId: resolved.user.id, user: deps.present(resolved.user) } });
  };

  router.post(
    `${base}/signup/email`,
    authRoute(async (req, res) => {
      checkOrigin(req);
      await deps.limiter.consumeSignup(clientIp(req));
      const body = plainBody(req.body);
      const forwarded = await forward(req, "/sign-up/email", { body: { name: "", ...body } });
      await signedIn(res, forwarded, 201);
    }),
  );
  router.post(
    `${base}/signin/email`,
    authRoute(async (req, res) => {
      checkOrigin(req);
      const body = plainBody(req.body);
      const account = typeof body.email === "string" ? body.email : "";
      const ip = clientIp(req);
      await deps.limiter.assertLoginAllowed(account, ip);
      let forwarded: Forwarded;
      try {
        forwarded = await forward(req, "/sign-in/email", { body });
      } catch (error) {
        if (isAPIError(error) && error.code === AuthErrors.INVALID_CREDENTIALS.code) await deps.limiter.recordFailure(account, ip);
        throw error;
      }
      await deps.limiter.recordSuccess(account);
      await signedIn(res, forwarded, 200);
    }),
  );
  router.get(
    `${base}/signin/:provider`,
    authRoute(async (req, res) => {
      const provider = String(req.params.provider);
      if (!deps.providers.includes(provider)) throw new APIError({ status: 404, title: "Unknown provider", code: "AUTH_PROVIDER_NOT_CONFIGURED" });
      const callbackURL = typeof req.query.callbackURL === "string" ? req.query.callbackURL : "/";
      const errorCallbackURL = typeof req.query.errorCallbackURL === "string" ? req.query.errorCallbackURL : undefined;
      // A top-level navigation has no Origin; this request is ours. better-auth still checks the
      // callback URLs against trustedOrigins (open-redirect protection).
      const forwarded = await forward(req, "/sign-in/social", {
        method: "POST",
        origin: deps.baseOrigin,
        body: { provider, callbackURL, errorCallbackURL, disableRedirect: true },
      });
      const url = (forwarded.body as { url?: unknown } | undefined)?.url;
      if (typeof url !== "string") throw AuthErrors.OAUTH_PROVIDER_FAILED();
      passCookies(res, forwarded);
      res.setHeader("Referrer-Policy", "no-referrer");
      res.redirect(302, url);
    }),
  );
  const callback = authRoute(async (req, res) => {
    const provider = String(req.params.provider);
    if (!deps.providers.includes(provider)) throw new APIError({ status: 404, title: "Unknown provider", code: "AUTH_PROVIDER_NOT_CONFIGURED" });
    const forwarded = await forward(req, `/callback/${provider}`);
    passCookies(res, forwarded);
    const location = forwarded.headers.get("location");
    if (forwarded.status >= 300 && forwarded.status < 400 && location) {
      res.setHeader("Referrer-Policy", "no-referrer");
      res.redirect(302, location);
      return;
    }
    res.status(forwarded.status).json({ data: forwarded.body ?? null });
  });
  router.get(`${base}/callback/:provider`, callback);
  // Apple answers with a form POST.
  router.post(`${base}/callback/:provider`, callback);
  router.post(
    `${base}/signout`,
    authRoute(async (req, res) => {
      checkOrigin(req);
      const forwarded = await forward(req, "/sign-out", { body: {} });
      passCookies(res, forwarded);
      res.json({ data: { success: true } });
    }),
  );
  router.get(
    `${base}/session`,
    authRoute(async (req, res) => {
      const headers = new Headers();
      const token = bearerToken(req);
      if (token) headers.set("authorization", `Bearer ${token}`);
      if (req.headers.cookie) headers.set("cookie", req.headers.cookie);
      const resolved = await deps.resolveSession(headers);
      if (!resolved) {
        res.json({ data: null });
        return;
      }
      for (const cookie of resolved.setCookies) res.append("Set-Cookie", cookie);
      res.json({ data: { userId: resolved.user.id, user: deps.present(resolved.user) } });
    }),
  );
}

function plainBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw AuthErrors.INVALID_BODY("Expected a JSON object");
  return body as Record<string, unknown>;
}

/** better-auth's `{code, message}` → our error shape, with our codes where they mean the same. */
function mapError(status: number, body: unknown): APIError {
  const code = typeof (body as { code?: unknown } | undefined)?.code === "string" ? (body as { code: string }).code : `HTTP_${status}`;
  const ours = ERROR_MAP[code] ?? (code in AuthErrors ? (code as AuthErrorKey) : undefined);
  if (ours) return AuthErrors[ours]();
  const message = typeof (body as { message?: unknown } | undefined)?.message === "string" ? (body as { message: string }).message : "Session auth request failed";
  return new APIError({ status, title: message, code: `AUTH_SESSION_${code}`, disableExternalErrorTracking: status < 500 });
}
