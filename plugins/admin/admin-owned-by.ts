import type { RequestUser } from "../../contracts/request-user.js";

/** An ownership rule that also names its field (so a `writeOwned` holder cannot rewrite it). */
export type AdminOwnership = ((instance: Readonly<Record<string, unknown>>, user: RequestUser) => boolean) & { readonly field: string };

/**
 * The ownership helper of role-based admin access: a `writeOwned` holder may update and delete a
 * record when its `field` is the caller's id (an ObjectId, a string, or a populated document).
 * `adminOwnedBy("_id")` makes each user the owner of their own user record.
 *
 * @example
 * adminPlugin({ models: [{ model: Todo, routePath: "/todos", displayName: "Todos", listFields: ["title"],
 *   adminAccess: { ownedBy: adminOwnedBy("ownerId") } }], accessControl: {} });
 */
export function adminOwnedBy(field: string): AdminOwnership {
  const owned = (instance: Readonly<Record<string, unknown>>, user: RequestUser) => {
    const value = instance[field];
    if (value === null || value === undefined) return false;
    const id = typeof value === "object" && "_id" in value ? (value as { _id: unknown })._id : value;
    return String(id) === user.id;
  };
  return Object.assign(owned, { field });
}
