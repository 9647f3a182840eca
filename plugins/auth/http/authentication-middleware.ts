import type { Request, RequestHandler, Response } from "express";
import type { RequestUser } from "../../../contracts/request-user.js";
import { getRequestContext } from "../../../kernel/request-context.js";

/**
 * Finds the user a request's credentials belong to: undefined when it carries none (anonymous),
 * a 401 `APIError` when they are invalid, expired, tampered or belong to a disabled or deleted
 * user.
 */
export type CredentialResolver = (req: Request, res: Response) => Promise<RequestUser | undefined>;

/**
 * The `Authorization: Bearer <token>` credential, if the request has one. Other schemes (Basic,
 * HMAC webhooks…) are left to the host: they are not ours to reject.
 *
 * @example
 * bearerToken(req); // "eyJ…" | "" (scheme with no token) | undefined
 */
export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(header.trim());
  return match ? (match[1] ?? "").trim() : undefined;
}

/**
 * The middleware behind `AUTHENTICATION_MIDDLEWARE`: sets `req.user` and the request context's
 * `userId` (so log lines carry it) or leaves the request anonymous. The auth plugin's own public
 * endpoints (login, signup, refresh, OAuth callbacks) skip it, so a stale token a client still
 * attaches can never lock it out of signing in again.
 *
 * @example
 * ctx.container.bind(AUTHENTICATION_MIDDLEWARE, { useValue: authenticationMiddleware(resolve, (path) => path === "/auth/login") });
 */
export function authenticationMiddleware(resolve: CredentialResolver, isPublicPath: (path: string) => boolean): RequestHandler {
  return async function svcAuthenticate(req, res, next) {
    if (isPublicPath(req.path)) return next();
    try {
      const user = await resolve(req, res);
      if (user) {
        req.user = user;
        const context = getRequestContext();
        if (context) context.userId = user.id;
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
