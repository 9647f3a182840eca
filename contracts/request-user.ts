import type { Request } from "express";
import type { HttpErrorDetails } from "../kernel/errors.js";
import { HttpErrors } from "../kernel/http-errors.js";

/**
 * The authenticated user as every part of the framework sees it: `req.user` (undefined for
 * anonymous requests; `requireUser(req)` answers 401 instead), permission checks, query filters,
 * socket handlers (`socket.data.user`) and `AUTHENTICATOR` get the same object under both auth
 * providers. It is the user document read (lean) for this request, without secrets: `id` (the
 * string form of `_id`), `_id`, `email`, `admin`, `disabled`, and every field the host's schema
 * adds, typed `unknown` until declared.
 *
 * Declare the host's own fields once by merging them into this interface; every place that sees
 * the user then knows them:
 *
 * @example
 * declare module "svc" {
 *   interface RequestUser {
 *     readonly name?: string;
 *     readonly role?: "editor" | "viewer";
 *   }
 * }
 * const user = requireUser(req);
 * if (user.admin || user.role === "editor") { ... }
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
