/**
 * Top-level fields only the server writes: ids, the version key, and the fields of
 * `createdUpdatedPlugin` and `isDeletedPlugin` (deletion goes through DELETE). Generated routes
 * also treat the router's owner field as server-managed.
 */
export const SERVER_MANAGED_PATHS: readonly string[] = Object.freeze(["_id", "id", "__v", "created", "updated", "deleted"]);
