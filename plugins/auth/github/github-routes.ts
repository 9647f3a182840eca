import { parse as parseCookies } from "cookie";
import type { Request, Response, Router } from "express";
import { requireUser } from "../../../contracts/request-user.js";
import { authRoute, queryObject, signInDevice } from "../http/auth-route.js";
import { objectBody } from "../http/request-bodies.js";
import type { GitHubSignIn } from "./github-sign-in.js";

/** Holds the login nonce between `GET /auth/github` and the callback. */
export const GITHUB_NONCE_COOKIE = "svc_github_oauth";

/** Public GitHub paths (credentials sent to them are not checked by the middleware). */
export const GITHUB_PUBLIC_PATHS = ["/auth/github", "/auth/github/callback", "/auth/github/token"];

/**
 * Mounts the GitHub routes: `GET /auth/github` (302 to GitHub), `GET /auth/github/callback`
 * (302 to `returnTo?authCode=…` / `?linkCode=…` / `?authError=CODE`, or `{data: {authCode}}`
 * without a `returnTo`), `POST /auth/github/token {authCode, codeVerifier?}` →
 * `{data: {token, refreshToken, userId}}`, `GET /auth/github/link` (JWT) → `{data: {url}}`,
 * `POST /auth/github/link {linkCode}` (JWT) → `{data: user}`, `DELETE /auth/github/unlink`
 * (JWT) → `{data: user}`.
 *
 * @example
 * mountGitHubRoutes(router, github, { secureCookies: config.isProduction });
 */
export function mountGitHubRoutes(router: Router, github: GitHubSignIn, options: { secureCookies: boolean }): void {
  const cookieOptions = { httpOnly: true, sameSite: "lax" as const, secure: options.secureCookies, path: "/" };

  router.get(
    "/auth/github",
    authRoute(async (req, res) => {
      const { url, nonce } = await github.begin(queryObject(req));
      res.cookie(GITHUB_NONCE_COOKIE, nonce, { ...cookieOptions, maxAge: 10 * 60 * 1000 });
      redirect(res, url);
    }),
  );
  router.get(
    "/auth/github/callback",
    authRoute(async (req, res) => {
      const nonce = readCookie(req, GITHUB_NONCE_COOKIE);
      // Single use: whatever happens next, this browser's pending login is over.
      res.clearCookie(GITHUB_NONCE_COOKIE, cookieOptions);
      const outcome = await github.callback(queryObject(req), nonce);
      if ("redirect" in outcome) redirect(res, outcome.redirect);
      else res.json({ data: outcome.data });
    }),
  );
  router.post(
    "/auth/github/token",
    authRoute(async (req, res) => {
      res.json({ data: await github.redeem(objectBody(req.body), signInDevice(req)) });
    }),
  );
  router.get(
    "/auth/github/link",
    authRoute(async (req, res) => {
      res.json({ data: { url: await github.beginLink(requireUser(req), queryObject(req)) } });
    }),
  );
  router.post(
    "/auth/github/link",
    authRoute(async (req, res) => {
      const user = requireUser(req);
      res.json({ data: await github.completeLink(user, objectBody(req.body)) });
    }),
  );
  router.delete(
    "/auth/github/unlink",
    authRoute(async (req, res) => {
      res.json({ data: await github.unlink(requireUser(req)) });
    }),
  );
}

function redirect(res: Response, url: string): void {
  // The target URL may carry a one-time code: keep it out of the next page's Referer.
  res.setHeader("Referrer-Policy", "no-referrer");
  res.redirect(302, url);
}

function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parseCookies(header)[name];
}
