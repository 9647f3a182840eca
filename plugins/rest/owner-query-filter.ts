import type { Request } from "express";
import type { RequestUser } from "../../contracts/request-user.js";

/** What a query filter is told besides the user and the request. */
export interface QueryFilterContext {
  /** The router's owner field (default `ownerId`). */
  readonly ownerField: string;
}

/** A MongoDB filter object. */
export type QueryFilterObject = Record<string, unknown>;

/**
 * Restricts what a caller can reach: returns a MongoDB filter ANDed with the client's filters on
 * lists and with the id on read, update and delete (a record outside it answers 404, as if it
 * did not exist), or null/undefined for "nothing" (an empty list; 404 for every record).
 *
 * @example
 * const PublishedOnly: QueryFilter = () => ({ published: true });
 */
export type QueryFilter = (
  user: RequestUser | undefined,
  req: Request,
  context: QueryFilterContext,
) => QueryFilterObject | null | undefined | Promise<QueryFilterObject | null | undefined>;

/**
 * Scopes a router to the caller's own records (the router's owner field equals their id): others'
 * records are left out of lists and answer 404. Admins reach every record, as `IsOwner` lets
 * them; anonymous callers reach none.
 *
 * @example
 * modelRouter("/todos", Todo, { queryFilter: OwnerQueryFilter, permissions: { list: [Permissions.IsAuthenticated] } });
 */
export const OwnerQueryFilter: QueryFilter = (user, _req, context) => {
  if (!user) return null;
  return user.admin === true ? {} : { [context.ownerField]: user.id };
};
