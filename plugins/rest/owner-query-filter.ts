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
 * Restricts a list to some records: returns a MongoDB filter ANDed with the client's filters, or
 * null/undefined for "nothing" (the list is empty).
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
 * Lists only the caller's own records (the router's owner field equals their id); anonymous
 * callers get an empty list.
 *
 * @example
 * modelRouter("/todos", Todo, { queryFilter: OwnerQueryFilter, permissions: { list: [Permissions.IsAuthenticated] } });
 */
export const OwnerQueryFilter: QueryFilter = (user, _req, context) => (user ? { [context.ownerField]: user.id } : null);
