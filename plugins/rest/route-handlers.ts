import type { Request, RequestHandler, Response } from "express";
import { Document, type HydratedDocument, type Model, type PopulateOptions } from "mongoose";
import type { RequestUser } from "../../contracts/request-user.js";
import type { BodyChecker } from "./body-checker.js";
import { applyPatch } from "./apply-patch.js";
import { RestErrors } from "./errors.js";
import { hookDenied, runHook } from "./hook-errors.js";
import type { ListQuery } from "./list-query.js";
import type { ModelOperation, ModelOperationResult, ModelOperations } from "../../contracts/model-registry.js";
import type { ModelAnalysis } from "./model-analysis.js";
import type { ModelRouterOptions, RequestBody, ResponseDocument } from "./model-router-options.js";
import type { QueryFilterObject } from "./owner-query-filter.js";
import type { RouterThrottle } from "./router-throttle.js";
import { checkPermissions, type PermissionContext, type RestMethod } from "./permissions.js";
import type { DocumentShaper } from "./response-shaping.js";
import { isValidObjectId } from "./schema/object-id.js";
import { saveLoaded } from "./save-loaded.js";
import { checkIfMatch, recordEtag } from "./record-revision.js";
import { markStaleWrite } from "../../contracts/stale-write.js";
import { pickFields } from "./sparse-fields.js";
import { retryStaleWrite } from "./stale-write-retry.js";
import { HttpErrors } from "../../kernel/http-errors.js";

/** Everything the handlers of one router use, prepared once at start. */
export interface RouteRuntime<T> {
  readonly model: Model<T>;
  readonly analysis: ModelAnalysis;
  readonly options: ModelRouterOptions<T>;
  readonly shaper: DocumentShaper;
  readonly parseList: (query: Record<string, unknown>) => ListQuery;
  /** A read's `?fields=` (undefined: every field); throws the 400 of a bad list. */
  readonly parseReadFields: (query: Record<string, unknown>) => ReadonlySet<string> | undefined;
  readonly checkCreate: BodyChecker<T>;
  readonly checkUpdate: BodyChecker<T>;
  readonly populate: readonly PopulateOptions[];
  /** Shapes one response document for the client (responseHandler and its deprecated forms). */
  readonly present?: (doc: ResponseDocument, method: RestMethod, req: Request) => unknown;
  /** Checks shaped documents against the documented schema (`validateResponses`). */
  readonly checkResponse?: (doc: ResponseDocument) => void;
  /** The router's `throttle`, spent after the method's permission check. */
  readonly throttle?: RouterThrottle;
}

/** The five handlers (and the 405 answer) of a model router, and the operations they send. */
export interface RouteHandlers {
  list: RequestHandler;
  create: RequestHandler;
  read: RequestHandler;
  update: RequestHandler;
  remove: RequestHandler;
  methodNotAllowed: (allow: string) => RequestHandler;
  /** The same five operations as results rather than responses (what MCP's model tools run). */
  operations: ModelOperations;
}

type StoredDocument = HydratedDocument<Record<string, unknown>>;

/** String ids (e.g. UUIDs of synced models) are bounded and plain. */
const STRING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Builds a router's handlers: list, create, read, update, delete, each doing ARCHITECTURE §4's
 * work in the same order — method permission (401 anonymous / 403 user), the router's throttle
 * (429), id check (malformed → 404), load within the caller's `queryFilter` (outside it → 404),
 * object permission, body check, hooks, write, shape once, answer (create adds a `Location`
 * header). Reads are lean unless
 * the model needs rich serialization; list's page and count run concurrently.
 *
 * @example
 * const handlers = routeHandlers(runtime);
 * router.get("/", handlers.list);
 */
export function routeHandlers<T>(runtime: RouteRuntime<T>): RouteHandlers {
  const { model, analysis, options, shaper, populate, present, checkResponse, throttle } = runtime;
  const permissions = options.permissions;
  const context: PermissionContext = { ownerField: analysis.ownerField };
  const lean = !analysis.richSerialization;
  const hasPopulate = populate.length > 0;
  const populateList = populate as PopulateOptions[];
  // Handlers work on plain records; hooks see the caller's document type again.
  const store = model as unknown as Model<Record<string, unknown>>;
  const forHooks = (doc: StoredDocument) => doc as unknown as HydratedDocument<T>;
  // Models with `optimisticConcurrency` keep a revision: answers carry it in their ETag, and If-Match is checked against it.
  const revision = analysis.revisionPath;
  const revisionOf = (doc: unknown): number | undefined => {
    if (!revision) return undefined;
    const value = doc instanceof Document ? doc.get(revision) : (doc as Record<string, unknown>)[revision];
    return typeof value === "number" ? value : undefined;
  };

  /** Method-level permission; resolves (or returns) nothing when allowed. */
  function authorize(method: RestMethod, user: RequestUser | undefined, object?: Readonly<Record<string, unknown>>): void | Promise<void> {
    const checks = permissions[method] ?? [];
    const allowed = checkPermissions(checks, method, user, object, context);
    if (allowed === true) return;
    if (allowed === false) throw denial(checks.length, method, user, object);
    return allowed.then((ok) => {
      if (!ok) throw denial(checks.length, method, user, object);
    });
  }

  /**
   * The checks every operation starts with: the method's permission, then the throttle (a caller
   * refused anyway spends nothing). Resolves (or returns) nothing when the request may go on.
   */
  function admit(method: RestMethod, req: Request): void | Promise<void> {
    const denied = authorize(method, req.user);
    if (!throttle) return denied;
    return denied ? denied.then(() => throttle(method, req)) : throttle(method, req);
  }

  function denial(checkCount: number, method: RestMethod, user: RequestUser | undefined, object: unknown) {
    // No checks at all: the method is closed, and authenticating would not help.
    if (checkCount === 0) return HttpErrors.FORBIDDEN({ detail: `${method} is not permitted on ${analysis.modelName}` });
    if (!user) return HttpErrors.UNAUTHENTICATED({ detail: `${method} on ${analysis.modelName} requires authentication` });
    return HttpErrors.FORBIDDEN({ detail: `${method} is not permitted on ${object ? "this " : ""}${analysis.modelName}` });
  }

  function checkId(req: Request): string {
    const id = req.params.id as string;
    const valid = analysis.objectIdKeys ? isValidObjectId(id) : STRING_ID.test(id);
    if (!valid) throw RestErrors.NOT_FOUND({ detail: `No ${analysis.modelName} with this id` });
    return id;
  }

  function notFound() {
    return RestErrors.NOT_FOUND({ detail: `No ${analysis.modelName} with this id` });
  }

  function shapeDoc(doc: unknown): ResponseDocument {
    return lean ? shaper.lean(doc as Record<string, unknown>) : shaper.hydrated(doc as Document<unknown>);
  }

  async function presentOne(doc: ResponseDocument, method: RestMethod, req: Request): Promise<unknown> {
    checkResponse?.(doc);
    return present ? present(doc, method, req) : doc;
  }

  /**
   * The filter that finds one record for this caller: its id, ANDed with the router's
   * `queryFilter` scope. A record outside the scope (or a scope of "nothing") is then missing,
   * so it answers 404 like a record that does not exist — a 403 would confirm it exists.
   */
  async function recordFilter(id: string, user: RequestUser | undefined, req: Request): Promise<QueryFilterObject> {
    const byId: QueryFilterObject = { _id: id };
    if (!options.queryFilter) return byId;
    const scope = await options.queryFilter(user, req, context);
    if (scope === null || scope === undefined) throw notFound();
    return combineFilters(byId, scope);
  }

  async function loadForWrite(req: Request): Promise<StoredDocument> {
    const id = checkId(req);
    const doc = await store.findOne(await recordFilter(id, req.user, req)).exec();
    if (!doc) throw notFound();
    return doc;
  }

  /** Saves a loaded document; deleted meanwhile (`loadedLive`: not soft-deleted when loaded) is a 404. */
  async function saveOr404(doc: StoredDocument, loadedLive: boolean): Promise<void> {
    if ((await saveLoaded(doc, { softDelete: analysis.softDelete && loadedLive })) === "gone") throw notFound();
  }

  const list: ModelOperation = async (req) => {
    const user = req.user;
    const admitted = admit("list", req);
    if (admitted) await admitted;
    const query = runtime.parseList(req.query as Record<string, unknown>);
    let filter: QueryFilterObject = query.filter;
    if (options.queryFilter) {
      const scope = await options.queryFilter(user, req, context);
      if (scope === null || scope === undefined) {
        return { status: 200, body: { data: [], limit: query.limit, page: query.page, more: false, total: 0 } };
      }
      filter = combineFilters(filter, scope);
    }
    if (options.preList) {
      const hooked = await runHook("preList", () => options.preList!(filter, req));
      if (hooked === null || hooked === undefined) throw hookDenied("preList");
      filter = hooked;
    }
    const find = store.find(filter).sort(query.sort).skip(query.skip).limit(query.limit);
    if (hasPopulate) find.populate(populateList);
    if (lean) find.lean();
    const [docs, total] = await Promise.all([find.exec() as Promise<unknown[]>, store.countDocuments(filter).exec()]);
    let data: ResponseDocument[] = docs.map(shapeDoc);
    if (options.postList) {
      const replaced = await runHook("postList", () => options.postList!(data, req));
      if (Array.isArray(replaced)) data = replaced;
    }
    let body: unknown[] = data;
    if (present || checkResponse) body = await Promise.all(data.map((doc) => presentOne(doc, "list", req)));
    const { fields } = query;
    if (fields) body = body.map((doc) => pickFields(doc, fields));
    return { status: 200, body: { data: body, limit: query.limit, page: query.page, more: query.skip + docs.length < total, total } };
  };

  const read: ModelOperation = async (req) => {
    const user = req.user;
    const admitted = admit("read", req);
    if (admitted) await admitted;
    const id = checkId(req);
    const fields = runtime.parseReadFields(req.query as Record<string, unknown>);
    const find = store.findOne(await recordFilter(id, user, req));
    if (hasPopulate) find.populate(populateList);
    if (lean) find.lean();
    const doc = await find.exec();
    if (!doc) throw notFound();
    const objectDenied = authorize("read", user, doc as unknown as Record<string, unknown>);
    if (objectDenied) await objectDenied;
    // Read before shaping, which takes the version key off a lean record.
    const docRevision = revisionOf(doc);
    const shaped = shapeDoc(doc);
    const answered = present || checkResponse ? await presentOne(shaped, "read", req) : shaped;
    return { status: 200, body: { data: fields ? pickFields(answered, fields) : answered }, revision: docRevision };
  };

  const create: ModelOperation = async (req) => {
    const user = req.user;
    const admitted = admit("create", req);
    if (admitted) await admitted;
    let body = runtime.checkCreate(req);
    // A copy: the checked body is the request's own, which the request log prints as the client sent it.
    // With `ownerField: "_id"` (a user model: each user owns their own record) a new record is not
    // its creator, so it keeps a fresh id.
    if (analysis.hasOwnerPath && analysis.ownerField !== "_id" && user) body = { ...body, [analysis.ownerField]: user.id };
    if (options.preCreate) {
      const hooked = await runHook("preCreate", () => options.preCreate!(body, req));
      if (hooked === null || hooked === undefined) throw hookDenied("preCreate");
      body = hooked;
    }
    const doc = new store(body);
    await doc.save();
    if (hasPopulate) await doc.populate(populateList);
    if (options.postCreate) await runHook("postCreate", () => options.postCreate!(forHooks(doc), req));
    return { status: 201, body: { data: await presentOne(shaper.hydrated(doc), "create", req) }, createdId: String(doc._id), revision: revisionOf(doc) };
  };

  // A PATCH or DELETE whose save finds the document changed since it was loaded runs again from a fresh load.
  const writeOf = (req: Request) => `${store.modelName}:${String(req.params.id)}`;

  // Admitted once: a retry is the same request.
  const update: ModelOperation = async (req) => {
    const admitted = admit("update", req);
    if (admitted) await admitted;
    return retryStaleWrite(writeOf(req), () => updateOnce(req));
  };
  const updateOnce: ModelOperation = async (req) => {
    const user = req.user;
    const doc = await loadForWrite(req);
    const objectDenied = authorize("update", user, doc as unknown as Record<string, unknown>);
    if (objectDenied) await objectDenied;
    checkIfMatch(req.headers["if-match"], revision, revisionOf(doc), analysis.modelName);
    let body: RequestBody<T> = runtime.checkUpdate(req);
    const prevDoc = doc.toObject() as T;
    if (options.preUpdate) {
      const hooked = await runHook("preUpdate", () => options.preUpdate!(body, req, forHooks(doc)));
      if (hooked === null || hooked === undefined) throw hookDenied("preUpdate");
      body = hooked;
    }
    applyPatch(doc, body as Record<string, unknown>);
    await saveOr404(doc, doc.get("deleted") !== true);
    if (hasPopulate) await doc.populate(populateList);
    if (options.postUpdate) await runHook("postUpdate", () => options.postUpdate!(forHooks(doc), body, req, prevDoc));
    return { status: 200, body: { data: await presentOne(shaper.hydrated(doc), "update", req) }, revision: revisionOf(doc) };
  };

  const remove: ModelOperation = async (req) => {
    const admitted = admit("delete", req);
    if (admitted) await admitted;
    return retryStaleWrite(writeOf(req), () => removeOnce(req));
  };
  const removeOnce: ModelOperation = async (req) => {
    const user = req.user;
    const doc = await loadForWrite(req);
    const objectDenied = authorize("delete", user, doc as unknown as Record<string, unknown>);
    if (objectDenied) await objectDenied;
    const ifMatch = req.headers["if-match"];
    checkIfMatch(ifMatch, revision, revisionOf(doc), analysis.modelName);
    if (options.preDelete) {
      const allowed = await runHook("preDelete", () => options.preDelete!(forHooks(doc), req));
      if (allowed === null || allowed === undefined) throw hookDenied("preDelete");
    }
    if (analysis.softDelete) {
      const loadedLive = doc.get("deleted") !== true;
      doc.set("deleted", true);
      await saveOr404(doc, loadedLive);
    } else {
      // A concurrent DELETE got there first: its caller deleted the record, this one finds nothing.
      // With If-Match, only the revision checked: another write since is a stale write, redone from a fresh load.
      const { deletedCount } = ifMatch !== undefined && revision ? await store.deleteOne({ _id: doc._id, [revision]: revisionOf(doc) }) : await doc.deleteOne();
      if (deletedCount === 0) {
        if (ifMatch !== undefined && (await store.exists({ _id: doc._id }))) throw markStaleWrite(RestErrors.STALE_DOCUMENT({ detail: `This ${analysis.modelName} changed since it was loaded; load it again` }));
        throw notFound();
      }
    }
    if (options.postDelete) await runHook("postDelete", () => options.postDelete!(forHooks(doc), req));
    return { status: 204 };
  };

  const methodNotAllowed = (allow: string): RequestHandler => (_req: Request, res: Response) => {
    res.setHeader("Allow", allow);
    throw RestErrors.METHOD_NOT_ALLOWED({ detail: `Use ${allow}` });
  };

  const operations: ModelOperations = { list, create, read, update, delete: remove };
  return { list: send(list), create: send(create), read: send(read), update: send(update), remove: send(remove), methodNotAllowed, operations };
}

/** An operation as an express handler: its result becomes the response. */
function send(operation: ModelOperation): RequestHandler {
  return async (req, res) => {
    const result: ModelOperationResult = await operation(req);
    // The new record's URL under wherever this router is mounted (app prefixes included).
    if (result.createdId !== undefined) res.location(`${req.baseUrl}/${encodeURIComponent(result.createdId)}`);
    if (result.body === undefined) res.status(result.status).end();
    else if (result.revision === undefined) res.status(result.status).json(result.body);
    else {
      // Serialised once: the ETag is a digest of exactly these bytes (express answers If-None-Match from it).
      const text = JSON.stringify(result.body);
      res.setHeader("ETag", recordEtag(result.revision, text));
      res.status(result.status).type("json").send(text);
    }
  };
}

/**
 * ANDs the client's filters with the server's scope. Disjoint keys merge into one object (the
 * shape the query planner likes best); overlapping ones go through `$and`, so a client filter on
 * the owner field can narrow the scope but never widen or replace it.
 *
 * @example
 * combineFilters({ done: false }, { ownerId: "65f..." }); // { done: false, ownerId: "65f..." }
 */
export function combineFilters(client: QueryFilterObject, server: QueryFilterObject): QueryFilterObject {
  const clientKeys = Object.keys(client);
  if (clientKeys.length === 0) return server;
  const serverKeys = Object.keys(server);
  if (serverKeys.length === 0) return client;
  if (serverKeys.some((key) => key in client || key.startsWith("$"))) return { $and: [client, server] };
  return { ...client, ...server };
}
