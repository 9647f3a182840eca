/** The fields `githubUserPlugin` adds to a user record, as the auth plugin reads and writes them. */
export const GITHUB_USER_FIELDS = ["githubId", "githubUsername", "githubProfileUrl", "githubAvatarUrl"] as const;

/**
 * The fields of a user record the framework manages — flags and roles (privileges), the sign-in
 * identity, ids, timestamps, secrets, linked identities. No client sets them on itself: sign-up
 * and `PATCH /auth/me` refuse them, the admin lets only `<resource>:write` set them, and a REST
 * router of a user model lets only an `admin: true` caller write them.
 *
 * @example
 * MANAGED_USER_FIELDS.includes("roles"); // true
 */
export const MANAGED_USER_FIELDS: readonly string[] = [
  "_id",
  "id",
  "__v",
  "admin",
  // The default role resolver grants admin permissions from a user's `roles`: as much a privilege as `admin`.
  "roles",
  "disabled",
  "deleted",
  "email",
  "password",
  // The auth plugin's count of ended sign-ins (baseUserPlugin, hidden).
  "signInVersion",
  // Its sign-ins ended one by one (baseUserPlugin, hidden).
  "endedSignIns",
  "emailVerifiedAt",
  "passwordHash",
  "hash",
  "salt",
  "created",
  "updated",
  "federatedId",
  ...GITHUB_USER_FIELDS,
];

/**
 * Whether a mongoose schema is a user model's: it has `baseUserPlugin`'s `email` and `admin`.
 *
 * @example
 * if (isUserSchema(model.schema)) protect(MANAGED_USER_FIELDS);
 */
export function isUserSchema(schema: { path(name: string): unknown }): boolean {
  return schema.path("email") !== undefined && schema.path("admin") !== undefined;
}
