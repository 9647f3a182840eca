import type { Request } from "express";
import type { HttpErrorDetails } from "../kernel/errors.js";
import { HttpErrors } from "../kernel/http-errors.js";

/**
 * The authenticated user as every part of the framework sees it: `req.user`, permission checks,
 * hooks and socket handlers get the same object under both auth providers. It is the user
 * document loaded for this request (so host-defined fields are there too); `id` is always the
 * string form of `_id`.
 *
 * @example
 * if (req.user?.admin) { ... }
 */
export interface RequestUser {
  readonly id: string;
  readonly _id: unknown;
  readonly admin?: boolean;
  readonly disabled?: boolean;
  readonly email?: string;
  readonly [field: string]: unknown;
}

/**
 * The signed-in user of a request, or 401 `HTTP_UNAUTHENTICATED` (the code every route answers
 * "sign in required" with, whichever plugin serves it).
 *
 * @example
 * router.get("/me/settings", (req, res) => res.json({ data: settingsOf(requireUser(req)) }));
 * requireUser(req, { detail: "Sign in to read feature flags" });
 */
export function requireUser(req: Request, details?: HttpErrorDetails): RequestUser {
  if (!req.user) throw HttpErrors.UNAUTHENTICATED(details);
  return req.user;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the authentication hook; undefined for anonymous requests. */
      user?: RequestUser;
      /** The correlation id of this request (also echoed as `X-Request-ID`). */
      requestId?: string;
    }
  }
}
