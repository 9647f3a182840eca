import type { RequestHandler, Router } from "express";
import { requireUser, type RequestUser } from "../../contracts/request-user.js";
import { applyInOrder } from "./apply-in-order.js";
import { operatorKeys, requestValidationError, requireJsonBody, validateQueryParams, validateRequestBody, ValidationErrors } from "../validation/index.js";
import { SyncErrors } from "./errors.js";
import { keyMaterialFor } from "./key-service.js";
import type { StreamMembership } from "./membership.js";
import type { MutationService } from "./mutation-service.js";
import { NACK_STATUS } from "./nack.js";
import { lookupEntities, readSnapshot, snapshotBody, snapshotRestriction, SNAPSHOT_DEFAULT_LIMIT } from "./snapshot-service.js";
import type { SyncBookkeeping } from "./sync-bookkeeping.js";
import type { SyncedCollection } from "./synced-collections.js";
import { BATCH_BODY_SCHEMA, ENTITIES_QUERY_SCHEMA, MAX_LOOKUP_IDS, SNAPSHOT_QUERY_SCHEMA } from "./sync-route-schemas.js";

export interface SyncRoutesOptions {
  readonly basePath: string;
  readonly collections: ReadonlyMap<string, SyncedCollection>;
  readonly membership: StreamMembership;
  readonly bookkeeping: SyncBookkeeping;
  readonly mutations: MutationService;
}

/**
 * Mounts the sync HTTP routes of SPEC §4.6 with ARCHITECTURE §4's shapes: snapshot, streams,
 * entities, key, mutate and mutate/batch, all for signed-in users only. Thin: each checks its
 * query or body, asks a service and answers.
 *
 * @example
 * mountSyncRoutes(ctx.resolve(HTTP_ROUTER), { basePath: "/sync", collections, membership, bookkeeping, mutations });
 */
export function mountSyncRoutes(router: Router, options: SyncRoutesOptions): void {
  const { basePath, collections, membership, bookkeeping, mutations } = options;
  const signedIn: RequestHandler = (req, _res, next) => {
    requireUser(req, { detail: "Sync needs a signed-in user" });
    next();
  };
  const collectionOf = async (name: string, user: RequestUser): Promise<SyncedCollection> => {
    const collection = collections.get(name);
    if (!collection) throw SyncErrors.UNKNOWN_COLLECTION({ detail: `No synced collection "${name}"`, source: { parameter: "collection" } });
    if (!(await membership.mayList(user, collection))) throw SyncErrors.COLLECTION_FORBIDDEN({ detail: `Listing ${name} is not permitted`, source: { parameter: "collection" } });
    return collection;
  };

  const snapshot: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    const query = req.query as unknown as { collection: string; stream?: string; cursor?: number; limit?: number };
    const collection = await collectionOf(query.collection, user);
    const streams = await membership.streamsOf(user, collection);
    const stream = query.stream ?? (streams.length === 1 ? streams[0]! : undefined);
    if (stream === undefined) throw SyncErrors.STREAM_FORBIDDEN({ detail: "Name the stream: this user is in several (or none) of this collection's", source: { parameter: "stream" } });
    if (!streams.includes(stream)) throw SyncErrors.STREAM_FORBIDDEN({ detail: "The caller is not a member of this stream", source: { parameter: "stream" } });
    const page = await readSnapshot(bookkeeping, collection, stream, query.cursor ?? 0, query.limit ?? SNAPSHOT_DEFAULT_LIMIT, await snapshotRestriction(collection, user));
    // Sent as the page's own JSON bytes: express's res.json would also hash every page for an
    // ETag, which no client of a cursor-paged, per-user answer revalidates.
    const body = snapshotBody(page);
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", body.length);
    res.end(body);
  };

  const streamsRoute: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    const scopeKeys = await membership.scopeKeys(user);
    const streams: { collection: string; stream: string }[] = [];
    for (const collection of collections.values()) {
      if (!(await membership.mayList(user, collection))) continue;
      for (const stream of await membership.streamsOf(user, collection, scopeKeys)) streams.push({ collection: collection.name, stream });
    }
    res.json({ streams });
  };

  const entities: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    const query = req.query as unknown as { collection: string; ids: string };
    const collection = await collectionOf(query.collection, user);
    const ids = [...new Set(query.ids.split(",").filter((id) => id.length > 0))];
    // Refused, not cut short: an id left out would read as "not visible" to the caller.
    if (ids.length > MAX_LOOKUP_IDS) throw requestValidationError([{ path: "ids", message: `names ${ids.length} ids; at most ${MAX_LOOKUP_IDS} per request`, keyword: "maxItems" }], "query");
    const streams = await membership.streamsOf(user, collection);
    res.json({ entities: await lookupEntities(collection, ids, streams, await snapshotRestriction(collection, user)) });
  };

  const key: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    res.setHeader("Cache-Control", "no-store");
    res.json({ keyMaterial: await keyMaterialFor(bookkeeping, user.id) });
  };

  const mutate: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    requireJsonBody(req);
    refuseOperatorKeys(req.body);
    const outcome = await mutations.apply(user, req.body, req);
    if ("ack" in outcome) {
      res.json(outcome);
      return;
    }
    // A refusal carries the nack clients act on and the one error shape every route answers with.
    const { retryAfterMs } = outcome.nack;
    const retryAfterSeconds = retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000));
    if (retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(retryAfterSeconds));
    const error = NACK_ERRORS[outcome.nack.code]({ detail: outcome.nack.message, meta: retryAfterSeconds === undefined ? undefined : { retryAfterSeconds } });
    res.status(NACK_STATUS[outcome.nack.code]).json({ ...outcome, errors: [error.toErrorObject()], requestId: req.requestId });
  };

  const batch: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    res.json({ results: await applyInOrder((req.body as { mutations: unknown[] }).mutations, (entry) => mutations.apply(user, entry, req)) });
  };

  router.get(`${basePath}/snapshot`, signedIn, validateQueryParams(SNAPSHOT_QUERY_SCHEMA), snapshot);
  router.get(`${basePath}/streams`, signedIn, streamsRoute);
  router.get(`${basePath}/entities`, signedIn, validateQueryParams(ENTITIES_QUERY_SCHEMA), entities);
  router.get(`${basePath}/key`, signedIn, key);
  router.post(`${basePath}/mutate`, signedIn, mutate);
  // Before the schema check, which may strip unknown top-level keys (and a `$` key with them).
  const noOperatorKeys: RequestHandler = (req, _res, next) => {
    refuseOperatorKeys(req.body);
    next();
  };
  router.post(`${basePath}/mutate/batch`, signedIn, noOperatorKeys, validateRequestBody(BATCH_BODY_SCHEMA), batch);
}

/** The coded error beside each nack (ARCHITECTURE §4: one error shape for every refusal). */
const NACK_ERRORS = {
  conflict: SyncErrors.MUTATION_CONFLICT,
  forbidden: SyncErrors.MUTATION_FORBIDDEN,
  validation: SyncErrors.MUTATION_INVALID,
  not_found: SyncErrors.MUTATION_NOT_FOUND,
  rate_limited: SyncErrors.MUTATION_RATE_LIMITED,
  error: SyncErrors.MUTATION_FAILED,
} as const;

/**
 * A `$` key anywhere refuses the whole request (400 `VALIDATION_OPERATOR_IN_BODY`) before any
 * entry of a batch is applied, as every body route does (docs/rest.md).
 */
function refuseOperatorKeys(body: unknown): void {
  const operators = operatorKeys(body);
  if (operators.length > 0) throw requestValidationError(operators, "body", ValidationErrors.OPERATOR_IN_BODY);
}
