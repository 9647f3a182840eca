import type { RequestHandler } from "express";
import { requireUser, type RequestUser } from "../../contracts/request-user.js";
import { token } from "../../kernel/container.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { AdminAccessPolicy } from "./admin-access.js";

/**
 * The admin's permission check, for the app's own routes — the ones a custom screen calls, an
 * export only support may download: the same answer the admin's routes get (`admin: true` holds
 * everything; otherwise the roles from `ROLE_RESOLVER`, and `admin:access` too, since these
 * are the admin's permissions). Bound by `adminPlugin`; resolve it in the `start()` of a plugin
 * with `dependsOn: ["admin"]`, or per request.
 *
 * @example
 * const permissions = ctx.resolve(ADMIN_PERMISSIONS);
 * http.get("/reports/summary", permissions.require("reports:read"), (req, res) => res.json({ data: summary() }));
 */
export interface AdminPermissions {
  /** Whether `user` may open the admin and holds `permission` (`resource:action`, `*` and `resource:*` grants count). */
  holds(user: RequestUser | undefined, permission: string): Promise<boolean>;
  /** Express middleware: 401 `HTTP_UNAUTHENTICATED` without a user, 403 `HTTP_FORBIDDEN` unless they hold one of `permissions`. */
  require(...permissions: string[]): RequestHandler;
}

export const ADMIN_PERMISSIONS = token<AdminPermissions>("admin.Permissions");

/** The admin's permissions over its access policy. */
export function adminPermissions(access: AdminAccessPolicy): AdminPermissions {
  return {
    holds: (user, permission) => access.holds(user, permission),
    require(...permissions) {
      if (permissions.length === 0) throw new TypeError("require() needs at least one permission");
      return async (req, _res, next) => {
        const user = requireUser(req);
        for (const permission of permissions) if (await access.holds(user, permission)) return next();
        throw HttpErrors.FORBIDDEN({ detail: `Needs ${permissions.join(" or ")}` });
      };
    },
  };
}
