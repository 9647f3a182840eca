import type { RequestUser } from "../../contracts/request-user.js";
import type { RoleResolver } from "../../contracts/role-resolver.js";
import type { RestMethod } from "../rest/index.js";
import type { AdminEntry } from "./admin-entry.js";
import { AdminErrors } from "./errors.js";
import { ALL_PERMISSIONS, grants } from "./permission-set.js";

const NO_PERMISSIONS: ReadonlySet<string> = Object.freeze(new Set<string>());

/**
 * The admin's own permissions (SPEC §2.6): opening the admin and the platform tools.
 *
 * @example
 * await roleModel().create({ name: "ops", permissions: [TOOL_PERMISSIONS.access, TOOL_PERMISSIONS.runScripts] });
 */
export const TOOL_PERMISSIONS = Object.freeze({
  access: "admin:access",
  runScripts: "admin:runScripts",
  viewBackgroundTasks: "admin:viewBackgroundTasks",
  roles: "rbac:read",
  configuration: "configuration:read",
});

/**
 * Every access decision of the admin, in one place. Without role-based access, the admin is for
 * users with `admin: true` (`Permissions.IsAdmin`). With it, permissions come from the role
 * resolver — resolved once per request user — and SPEC §2.6's rules apply; `admin: true` still
 * holds every permission. A model's `adminAccess.authorize` replaces the per-model decision, but
 * never the gate (`admin: true`, or `admin:access`).
 *
 * @example
 * const access = new AdminAccessPolicy(resolver);
 * await access.decide(entry, "update", req.user, record);
 */
export class AdminAccessPolicy {
  // Keyed by the request's user object, so one request resolves its roles once.
  private readonly resolved = new WeakMap<RequestUser, Promise<ReadonlySet<string>>>();

  /** `resolver` present means role-based access (`accessControl`). */
  constructor(private readonly resolver?: RoleResolver) {}

  get roleBased(): boolean {
    return this.resolver !== undefined;
  }

  permissionsOf(user: RequestUser | undefined): Promise<ReadonlySet<string>> {
    if (!user || user.disabled === true) return Promise.resolve(NO_PERMISSIONS);
    if (user.admin === true) return Promise.resolve(ALL_PERMISSIONS);
    if (!this.resolver) return Promise.resolve(NO_PERMISSIONS);
    let pending = this.resolved.get(user);
    if (!pending) {
      pending = this.resolver.permissionsFor(user);
      this.resolved.set(user, pending);
    }
    return pending;
  }

  /** Whether the caller may open the admin at all. */
  async opens(user: RequestUser | undefined): Promise<boolean> {
    return grants(await this.permissionsOf(user), TOOL_PERMISSIONS.access);
  }

  /** Whether the caller may open the admin and holds `permission` (a platform tool's, a screen's). */
  async holds(user: RequestUser | undefined, permission: string): Promise<boolean> {
    const permissions = await this.permissionsOf(user);
    return grants(permissions, TOOL_PERMISSIONS.access) && grants(permissions, permission);
  }

  /**
   * May `user` do `action` on `entry` (on `instance`, when given)? Called without an instance
   * first: update, delete and read then pass, to be decided on the loaded record.
   */
  async decide(entry: AdminEntry, action: RestMethod, user: RequestUser | undefined, instance?: Readonly<Record<string, unknown>>): Promise<boolean> {
    if (!user) return false;
    const permissions = await this.permissionsOf(user);
    if (!grants(permissions, TOOL_PERMISSIONS.access)) return false;
    if (entry.readOnly && action !== "list" && action !== "read") return false;
    const perRecord = action === "read" || action === "update" || action === "delete";
    if (entry.authorize) {
      if (perRecord && instance === undefined) return true;
      return (await entry.authorize({ action, instance, user })) === true;
    }
    const resource = entry.resource;
    switch (action) {
      case "list":
      case "read":
        return grants(permissions, `${resource}:read`);
      case "create":
        return grants(permissions, `${resource}:write`) || grants(permissions, `${resource}:writeOwned`);
      default:
        if (grants(permissions, `${resource}:write`)) return true;
        if (!grants(permissions, `${resource}:writeOwned`)) return false;
        return instance === undefined || (entry.ownedBy?.(instance, user) ?? false);
    }
  }

  /** Whether the caller holds `<resource>:write` (or is `admin: true`): what protected fields need. */
  async writesProtected(entry: AdminEntry, user: RequestUser | undefined): Promise<boolean> {
    return grants(await this.permissionsOf(user), `${entry.resource}:write`);
  }

  /**
   * Refuses (403 `ADMIN_FIELD_NOT_PERMITTED`) a body that sets a protected field (`admin`,
   * `roles`, `disabled`, the ownership field, `adminAccess.protectedFields`) when the caller
   * lacks `<resource>:write` — writing through `writeOwned` or an `authorize` that lets them — so
   * "my own records" never becomes "my own privileges". `authorize` never sees the body, so it
   * cannot lift this rule; only `write` (or `admin: true`) does.
   */
  async checkFields(entry: AdminEntry, user: RequestUser | undefined, body: Readonly<Record<string, unknown>>): Promise<void> {
    if (!user) return;
    if (await this.writesProtected(entry, user)) return;
    // The owner field is the server's to set (REST refuses it from clients and fills it in on create).
    const refused = Object.keys(body).filter((field) => field !== entry.ownerField && entry.protectedFields.has(field.split(".")[0]!));
    if (refused.length > 0) throw AdminErrors.FIELD_NOT_PERMITTED({ detail: `Only ${entry.resource}:write may set ${refused.join(", ")}`, meta: { fields: refused } });
  }
}
