import mongoose, { Schema, type Model } from "mongoose";
import type { RequestUser } from "../../contracts/request-user.js";
import type { RoleDefinition, RoleResolver } from "../../contracts/role-resolver.js";

/** A stored role: a name users list in their `roles[]`, and what it grants. */
export interface RoleDocument {
  name: string;
  permissions: string[];
  description?: string;
}

export type RoleModel = Model<RoleDocument>;

const roleSchema = new Schema<RoleDocument>(
  {
    name: { type: String, required: true, unique: true, trim: true, maxlength: 100, description: "The role's name, as users list it in roles[]" },
    permissions: { type: [String], default: [], description: "What the role grants, e.g. admin:access, adminTodo:read" },
    description: { type: String, maxlength: 500, description: "What the role is for" },
  },
  { strict: "throw", collection: "roles", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);

/**
 * The `Role` model of the default role adapter (collection `roles`), on mongoose's default
 * connection, which is the one svc opens.
 *
 * @example
 * await roleModel().create({ name: "support", permissions: ["admin:access", "adminTodo:read"] });
 */
export function roleModel(): RoleModel {
  return (mongoose.models.Role ?? mongoose.model<RoleDocument>("Role", roleSchema)) as RoleModel;
}

/** Role names are strings; anything else in a user's `roles` is ignored rather than queried. */
function roleNamesOf(user: RequestUser): string[] {
  const roles = user.roles;
  if (!Array.isArray(roles)) return [];
  return roles.filter((role): role is string => typeof role === "string" && role.length > 0 && role.length <= 100);
}

/**
 * The default `ROLE_RESOLVER` adapter: a user holds the permissions of every role named in their
 * `roles[]` field, read from the `roles` collection (`{name, permissions[]}`).
 *
 * @example
 * const resolver = rolesCollectionResolver();
 * await resolver.permissionsFor(req.user!); // Set { "admin:access", "adminTodo:read" }
 */
export function rolesCollectionResolver(model: RoleModel = roleModel()): RoleResolver {
  return {
    async permissionsFor(user) {
      const names = roleNamesOf(user);
      if (names.length === 0) return new Set();
      const roles = await model.find({ name: { $in: names } }, { permissions: 1 }).lean();
      return new Set(roles.flatMap((role) => role.permissions ?? []));
    },
    async listRoles() {
      const roles = await model.find({}, { name: 1, permissions: 1, description: 1 }).sort({ name: 1 }).lean();
      return roles.map((role): RoleDefinition => ({ name: role.name, permissions: role.permissions ?? [], ...(role.description ? { description: role.description } : {}) }));
    },
  };
}
