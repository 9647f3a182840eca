import type { Schema } from "mongoose";

export interface FederatedIdentityOptions {
  /** Field name for the external identity's id (default `federatedId`). */
  field?: string;
}

/** The field the session-auth provider uses to tie its account to the host's user. */
export const DEFAULT_FEDERATED_FIELD = "federatedId";

/**
 * Adds an indexed, unique (when set) string id of the user's identity in an external identity
 * system. With `AUTH_PROVIDER=session-auth` the auth plugin stores the session system's user id
 * here and resolves every session to the host user through it (one indexed lookup).
 *
 * @example
 * userSchema.plugin(federatedIdentityPlugin);                          // federatedId
 * userSchema.plugin(federatedIdentityPlugin, { field: "authUserId" }); // custom name
 */
export function federatedIdentityPlugin(schema: Schema, options: FederatedIdentityOptions = {}): void {
  const field = options.field ?? DEFAULT_FEDERATED_FIELD;
  schema.add({ [field]: { type: String, description: "Id of this user in the external identity system" } });
  schema.index({ [field]: 1 }, { unique: true, partialFilterExpression: { [field]: { $type: "string" } } });
}
