import type { Request, Response, Router } from "express";
import type { RequestUser } from "../../../contracts/request-user.js";
import { isAPIError } from "../../../kernel/api-error.js";
import { HttpErrors } from "../../../kernel/http-errors.js";
import { AuthErrors } from "../errors.js";
import { authRoute, clientIp } from "../http/auth-route.js";
import { bearerToken } from "../http/authentication-middleware.js";
import type { LoginRateLimiter } from "../http/login-rate-limiter.js";
import { checkPasswordPolicy, type PasswordPolicy } from "../jwt/password-policy.js";
import { credentialsBody, sessionSignupBody } from "../http/request-bodies.js";
import { fromBetterAuth } from "./better-auth-errors.js";

/** Where SPEC §4.2's session endpoints live. */
export const SESSION_AUTH_BASE_PATH = "/api/auth";

// Set by us on every request we hand to better-auth (the client's own value is dropped), so its
// rate limiter and session records see the real client IP.
export const CLIENT_IP_HEADER = "x-svc-client-ip";

/**
 * Session auth's password rule (better-auth's default): checked here, before better-auth, so a
 * refusal is the JWT provider's `AUTH_WEAK_PASSWORD` with the bounds in `meta`, counted in characters.
 */
export const SESSION_PASSWORD_POLICY = { minLength: 8, maxLength: 256 } as const satisfies PasswordPolicy;

/** What the session routes need from the started better-auth instance. */
export interface SessionRouteDeps {
  handler: (request: globalThis.Request) => Promise<globalThis.Response>;
  baseOrigin: string;
  trustedOrigins: readonly string[];
  limiter: LoginRateLimiter;
  providers: readonly string[];
  resolveSession: (headers: Headers) => Promise<{ user: RequestUser; setCookies: string[]; sessionId: string; authUserId: string } | undefined>;
  /** Whether better-auth has a user with this (trimmed, lower-case) email. */
  emailTaken: (email: string) => Promise<boolean>;
  present: (user: RequestUser) => Record<string, unknown>;
  /** The live sessions of a better-auth user, newest activity first. */
  sessionsOf: (authUserId: string) => Promise<ReadonlyArray<{ id: string; token: string; createdAt: Date | string; updatedAt: Date | string; ipAddress?: string | null; userAgent?: string | null }>>;
  /** Deletes a session by its token: it is refused from the next request on. */
  endSession: (token: string) => Promise<void>;
}

/** What better-auth answered, after our error mapping. */
interface Forwarded {
  status: number;
  body: unknown;
  headers: Headers;
}

/**
 * Mounts SPEC §4.2's session endpoints under `/api/auth`, each forwarded to better-auth as JSON
 * with our origin checks, rate limits and error codes: sign-up and sign-in by email (bodies
 * checked by the shared validator first), social sign-in and its callback, sign-out, session.
 *
 * @example
 * mountSessionRoutes(ctx.resolve(HTTP_ROUTER), { handler: (request) => auth.handler(request), baseOrigin, ... });
 */
export function mountSessionRoutes(router: Router, deps: SessionRouteDeps): void {
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
    if (response.status >= 400) throw fromBetterAuth(response.status, parsed);
    return { status: response.status, body: parsed, headers: response.headers };
  };

  const passCookies = (res: Response, forwarded: Forwarded): void => {
    for (const cookie of forwarded.headers.getSetCookie()) res.append("Set-Cookie", cookie);
  };

  /**
   * State-changing requests from a browser must come from a trusted origin. Browsers send
   * `Origin` on every POST, so one with neither `Origin` nor a cookie (a mobile app, a server)
   * is no browser's cross-site request: it is handed to better-auth as ours (the returned
   * origin), which would otherwise refuse it as "Missing or null Origin" whenever it carries
   * Fetch Metadata (Node's fetch sends `Sec-Fetch-Mode`). With a cookie and no `Origin`,
   * better-auth's own check decides (a trusted `Referer`, or 403).
   */
  const checkOrigin = (req: Request): string | undefined => {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!deps.trustedOrigins.includes(origin)) throw AuthErrors.ORIGIN_NOT_TRUSTED();
      return undefined;
    }
    return req.headers.cookie === undefined ? deps.baseOrigin : undefined;
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
      const origin = checkOrigin(req);
      // Checked here; better-auth still gets the body as sent (it also reads name, image, callbackURL).
      const { email, password } = sessionSignupBody(req.body);
      checkPasswordPolicy(password, SESSION_PASSWORD_POLICY);
      await deps.limiter.consumeSignup(clientIp(req));
      const body = req.body as Record<string, unknown>;
      let forwarded: Forwarded;
      try {
        forwarded = await forward(req, "/sign-up/email", { body: { name: "", ...body }, origin });
      } catch (error) {
        // Sign-ups racing for one email all pass better-auth's lookup; the losers then fail later,
        // in our hook (the winner's host user: ACCOUNT_EXISTS) or on the unique index
        // (FAILED_TO_CREATE_USER). The email is taken, as a sign-up a moment later is told.
        const raced = isAPIError(error) && (error.code === AuthErrors.ACCOUNT_EXISTS.code || error.meta?.reason === "FAILED_TO_CREATE_USER");
        if (raced && (await deps.emailTaken(email))) throw AuthErrors.EMAIL_TAKEN();
        throw error;
      }
      await signedIn(res, forwarded, 201);
    }),
  );
  router.post(
    `${base}/signin/email`,
    authRoute(async (req, res) => {
      const origin = checkOrigin(req);
      const account = credentialsBody(req.body).email;
      const body = req.body as Record<string, unknown>;
      const ip = clientIp(req);
      // Spent before better-auth checks the password, so parallel guesses cannot outrun the counter.
      await deps.limiter.consumeLoginAttempt(account, ip);
      let forwarded: Forwarded;
      try {
        forwarded = await forward(req, "/sign-in/email", { body, origin });
      } catch (error) {
        // A wrong password keeps the points spent; any other refusal said nothing about it.
        if (!isAPIError(error) || error.code !== AuthErrors.INVALID_CREDENTIALS.code) await deps.limiter.releaseLoginAttempt(account, ip);
        throw error;
      }
      await deps.limiter.recordSuccess(account, ip);
      await signedIn(res, forwarded, 200);
    }),
  );
  router.get(
    `${base}/signin/:provider`,
    authRoute(async (req, res) => {
      const provider = String(req.params.provider);
      if (!deps.providers.includes(provider)) throw AuthErrors.PROVIDER_NOT_CONFIGURED();
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
  // Apple's callback is a form POST: not JSON, and not refused for it.
  const callback = authRoute(async (req, res) => {
    const provider = String(req.params.provider);
    if (!deps.providers.includes(provider)) throw AuthErrors.PROVIDER_NOT_CONFIGURED();
    const forwarded = await forward(req, `/callback/${provider}`);
    passCookies(res, forwarded);
    const location = forwarded.headers.get("location");
    if (forwarded.status >= 300 && forwarded.status < 400 && location) {
      res.setHeader("Referrer-Policy", "no-referrer");
      res.redirect(302, location);
      return;
    }
    res.status(forwarded.status).json({ data: forwarded.body ?? null });
  }, { anyBody: true });
  router.get(`${base}/callback/:provider`, callback);
  // Apple answers with a form POST.
  router.post(`${base}/callback/:provider`, callback);
  router.post(
    `${base}/signout`,
    authRoute(async (req, res) => {
      const origin = checkOrigin(req);
      const forwarded = await forward(req, "/sign-out", { body: {}, origin });
      passCookies(res, forwarded);
      res.json({ data: { success: true } });
    }),
  );
  /** The session the request carries (Bearer or cookie), as the auth middleware would resolve it. */
  const sessionOf = (req: Request) => {
    const headers = new Headers();
    const token = bearerToken(req);
    if (token) headers.set("authorization", `Bearer ${token}`);
    if (req.headers.cookie) headers.set("cookie", req.headers.cookie);
    return deps.resolveSession(headers);
  };
  router.get(
    `${base}/session`,
    authRoute(async (req, res) => {
      const resolved = await sessionOf(req);
      if (!resolved) {
        res.json({ data: null });
        return;
      }
      for (const cookie of resolved.setCookies) res.append("Set-Cookie", cookie);
      res.json({ data: { userId: resolved.user.id, user: deps.present(resolved.user) } });
    }),
  );
  // The signed-in user's sessions (devices), and signing one out: the JWT provider's
  // GET /auth/sign_ins and DELETE /auth/sign_ins/{id}, in session terms.
  const requireSession = async (req: Request) => {
    const resolved = await sessionOf(req);
    if (!resolved) throw HttpErrors.UNAUTHENTICATED({ detail: "Sign in to see your sessions" });
    return resolved;
  };
  router.get(
    `${base}/sessions`,
    authRoute(async (req, res) => {
      const resolved = await requireSession(req);
      const sessions = await deps.sessionsOf(resolved.authUserId);
      res.json({
        data: sessions.slice(0, 100).map((session) => ({
          id: session.id,
          signedInAt: new Date(session.createdAt).toISOString(),
          lastActiveAt: new Date(session.updatedAt).toISOString(),
          ...(session.userAgent ? { userAgent: session.userAgent.slice(0, 256) } : {}),
          ...(session.ipAddress ? { ip: session.ipAddress } : {}),
          current: session.id === resolved.sessionId,
        })),
      });
    }),
  );
  router.delete(
    `${base}/sessions/:id`,
    authRoute(async (req, res) => {
      checkOrigin(req);
      const resolved = await requireSession(req);
      const session = (await deps.sessionsOf(resolved.authUserId)).find((candidate) => candidate.id === req.params.id);
      if (!session) throw AuthErrors.SIGN_IN_NOT_FOUND();
      await deps.endSession(session.token);
      res.status(204).end();
    }),
  );
}

