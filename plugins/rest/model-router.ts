import express from "express";
import type { Request, RequestHandler } from "express";
import type { Model } from "mongoose";
import { HTTP_ROUTER, MOUNT_AT, type PathlessRouter } from "../../contracts/http.js";
import { MODEL_REGISTRY, type ModelHookName, type ModelRegistration, type ServedModel } from "../../contracts/model-registry.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { bodyChecker } from "./body-checker.js";
import { warnDeprecatedOnce } from "./deprecation.js";
import { RestErrors } from "./errors.js";
import { fieldsWithoutDescription } from "./field-descriptions.js";
import { createListQueryParser } from "./list-query.js";
import { analyzeModel, modelSchemas, planPopulate, type ModelAnalysis } from "./model-analysis.js";
import { documentModelRouter, listParameters } from "./model-openapi.js";
import type { ModelRouterOptions, ResponseDocument, RestModel } from "./model-router-options.js";
import { Permissions, type MethodPermissions, type RestMethod } from "./permissions.js";
import { documentShaper } from "./response-shaping.js";
import { readFieldsParser, responseFieldNames } from "./sparse-fields.js";
import { routeHandlers, type RouteRuntime } from "./route-handlers.js";
import { checkThrottleOption, routerThrottle } from "./router-throttle.js";
import { throttleStoreOf } from "../throttle/index.js";
import { checkIdempotencyOption, idempotencyRules, idempotent } from "../idempotency/index.js";
import { ajvFor, fromAjvErrors, validatorSettingsOf } from "../validation/index.js";

/**
 * A model router: an `SvcPlugin` serving CRUD for one model at one path, carrying its options
 * (`mcp`, `sync`, `admin` included) for the plugins that read them later.
 */
export interface ModelRouter<T> extends SvcPlugin {
  readonly path: string;
  readonly model: RestModel<T>;
  readonly options: Readonly<ModelRouterOptions<T>>;
  /** What the router worked out about the model (owner field, read-only fields, query fields...). */
  readonly analysis: ModelAnalysis;
}

/**
 * A model router made without a path (legacy form), mounted by `setupServer`'s `addRoutes` with
 * `router.use(path, ...)`. It is typed (and callable) as express middleware so that call
 * type-checks; mounted anywhere else, it answers every request with an error naming the fix.
 */
export interface PathlessModelRouter<T> extends PathlessRouter, RequestHandler {
  readonly name: string;
  readonly model: RestModel<T>;
  readonly options: Readonly<ModelRouterOptions<T>>;
  [MOUNT_AT](path: string): ModelRouter<T>;
}

// `T` comes from the model alone (`NoInfer` on the options), so hooks and inline checks are typed
// by the model's documents rather than widened by what they happen to accept. The path form is
// declared last because `Parameters<typeof modelRouter>` reads the last overload.
/** @see modelRouter — the legacy form, for `setupServer`'s `addRoutes`. */
export function modelRouter<T>(model: RestModel<T>, options: ModelRouterOptions<NoInfer<T>>): PathlessModelRouter<T>;
/**
 * Serves a mongoose model as REST at `path`: list (GET `path`), create (POST `path`), read (GET
 * `path/:id`), update (PATCH `path/:id`), delete (DELETE `path/:id`), PUT → 405; bodies wrapped
 * in `data`, lists as `{data, limit, page, more, total}`; permissions, query filters, hooks,
 * validation and OpenAPI from `options`. Register the result on the app. The legacy form
 * `modelRouter(Model, options)` returns a router that `setupServer`'s `addRoutes` mounts with
 * `router.use(path, ...)`; both behave identically.
 *
 * @example
 * app.register(modelRouter("/todos", Todo, {
 *   permissions: { list: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated],
 *                  read: [Permissions.IsOwner], update: [Permissions.IsOwner], delete: [Permissions.IsOwner] },
 *   queryFilter: OwnerQueryFilter,
 *   queryFields: ["done"],
 * }));
 * // Inline checks and hooks are typed by the model: `doc.publshed` would not compile.
 * modelRouter("/posts", Post, { permissions: { read: [(_method, _user, doc) => doc?.published === true] } });
 */
export function modelRouter<T>(path: string, model: RestModel<T>, options: ModelRouterOptions<NoInfer<T>>): ModelRouter<T>;
export function modelRouter<T>(
  pathOrModel: string | RestModel<T>,
  modelOrOptions: RestModel<T> | ModelRouterOptions<T>,
  maybeOptions?: ModelRouterOptions<T>,
): ModelRouter<T> | PathlessModelRouter<T> {
  if (typeof pathOrModel === "string") return createModelRouter(pathOrModel, modelOrOptions as RestModel<T>, maybeOptions!);
  const model = pathOrModel;
  const options = modelOrOptions as ModelRouterOptions<T>;
  const name = `model:${kebab(model.modelName)}`;
  const unmounted: RequestHandler = (_req, _res, next) => next(RestErrors.UNMOUNTED_ROUTER(name));
  Object.defineProperty(unmounted, "name", { value: name });
  return Object.assign(unmounted, {
    model,
    options,
    [MOUNT_AT]: (path: string) => createModelRouter(path, model, options),
  }) as PathlessModelRouter<T>;
}

/** `/api/v1/todoItems` → `model:api:v1:todo-items` (a valid, unique-per-path plugin name). */
export function modelRouterName(path: string, modelName: string): string {
  const segments = path.split("/").map(kebab).filter(Boolean);
  return `model:${segments.length > 0 ? segments.join(":") : kebab(modelName)}`;
}

function kebab(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

function createModelRouter<T>(path: string, restModel: RestModel<T>, options: ModelRouterOptions<T>): ModelRouter<T> {
  const model = restModel as unknown as Model<T>;
  const mountPath = path.startsWith("/") ? path.replace(/\/+$/, "") || "/" : `/${path.replace(/\/+$/, "")}`;
  // Analysed now, so a wrong option (an unknown query field, say) fails where the router is built.
  const analysis = analyzeModel(model, options);
  const name = modelRouterName(mountPath, model.modelName);
  const where = `${model.modelName} (${mountPath})`;
  checkThrottleOption(options.throttle, where);
  checkIdempotencyOption(options.idempotency, `${where}: idempotency`);
  // Set once started: what plugins serving the model another way (MCP) run and validate with.
  let served: ServedModel | undefined;
  return {
    name,
    // A synced model's writes are sequenced by the sync plugin: without it the app must not start
    // (its first write would fail instead).
    dependsOn: options.sync ? ["database", "sync"] : ["database"],
    path: mountPath,
    model: restModel,
    options,
    analysis,
    register(ctx) {
      // Filled before any plugin starts, so admin, MCP and sync see every model when they do.
      ctx.resolve(MODEL_REGISTRY).add({ ...modelRegistration(name, mountPath, model, analysis, options), served: () => served });
    },
    start(ctx) {
      const missing = fieldsWithoutDescription(model.schema);
      if (missing.length > 0) {
        ctx.logger.warn(`${model.modelName}: schema fields without a description: ${missing.join(", ")}`, { model: model.modelName, fields: missing });
      }
      if ((options.permissions.list as readonly unknown[] | undefined)?.includes(Permissions.IsOwner) && !options.queryFilter) {
        ctx.logger.warn(
          `${model.modelName} (${mountPath}): list: [Permissions.IsOwner] does not filter lists, so every signed-in user lists every record; add queryFilter: OwnerQueryFilter to show each user their own`,
          { model: model.modelName, path: mountPath },
        );
      }
      if (options.transformer) warnDeprecatedOnce(ctx.logger, "modelRouter.transformer", "modelRouter option `transformer` is deprecated: use `responseHandler(doc, method)`");
      if (options.responseSerializer) {
        warnDeprecatedOnce(ctx.logger, "modelRouter.responseSerializer", "modelRouter option `responseSerializer` is deprecated: use `responseHandler(doc, method)`");
      }

      const settings = validatorSettingsOf(ctx.container);
      const validation = { settings, logger: ctx.logger };
      const plan = planPopulate(model, options.populatePaths);
      const schemas = modelSchemas(model, analysis, options, plan.shapes);
      const responseFields = responseFieldNames(schemas.response, options.openApi?.responseProperties);
      const pickable = new Set(responseFields);
      const runtime: RouteRuntime<T> = {
        model,
        analysis,
        options,
        shaper: documentShaper(analysis),
        parseList: createListQueryParser(analysis, pickable),
        parseReadFields: readFieldsParser(pickable),
        checkCreate: withLegacyTransform(bodyChecker<T>(schemas.create, "create", analysis, validation, options.validation), "create", options),
        checkUpdate: withLegacyTransform(bodyChecker<T>(schemas.update, "update", analysis, validation, options.validation), "update", options),
        populate: plan.populate,
        present: presenter(options),
        checkResponse: settings.validateResponses ? responseCheck(model.modelName, schemas.response, ctx.logger) : undefined,
        throttle: routerThrottle(name, options.throttle, throttleStoreOf(ctx.container), ctx.logger, where),
      };
      const handlers = routeHandlers(runtime);
      const router = express.Router();
      router.get("/", handlers.list);
      const idempotency = idempotencyRules(options.idempotency);
      if (idempotency) router.post("/", idempotent(ctx, idempotency, `${where}: idempotency`), handlers.create);
      else router.post("/", handlers.create);
      router.put("/", handlers.methodNotAllowed("GET, POST"));
      router.get("/:id", handlers.read);
      router.patch("/:id", handlers.update);
      router.delete("/:id", handlers.remove);
      router.put("/:id", handlers.methodNotAllowed("GET, PATCH, DELETE"));
      ctx.resolve(HTTP_ROUTER).use(mountPath, router);
      documentModelRouter(ctx.openapi, mountPath, analysis, schemas, options, model.collection.collectionName);
      served = { operations: handlers.operations, schemas, listParameters: listParameters(analysis, schemas, responseFields), searchFields: analysis.searchFields, throttle: runtime.throttle };
    },
  };
}

/** `responseHandler`, else the deprecated `responseSerializer`, else `transformer.serialize`. */
function presenter<T>(options: ModelRouterOptions<T>): RouteRuntime<T>["present"] {
  if (options.responseHandler) return options.responseHandler;
  if (options.responseSerializer) return options.responseSerializer;
  const serialize = options.transformer?.serialize;
  if (serialize) return (doc: ResponseDocument, _method: RestMethod, req: Request) => serialize(doc, req.user);
  return undefined;
}

/** The deprecated `transformer.transform` reshapes incoming bodies before they are checked. */
function withLegacyTransform<T>(check: RouteRuntime<T>["checkCreate"], method: "create" | "update", options: ModelRouterOptions<T>): RouteRuntime<T>["checkCreate"] {
  const transform = options.transformer?.transform;
  if (!transform) return check;
  return (req) => {
    if (req.body && typeof req.body === "object" && !Array.isArray(req.body)) req.body = transform(req.body, method, req.user);
    return check(req);
  };
}

/** `validateResponses`: a mismatch is the server's bug, so it is logged and answered with 500. */
function responseCheck(modelName: string, schema: object, logger: SvcLogger): (doc: ResponseDocument) => void {
  const validate = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(schema);
  return (doc) => {
    // Check what the client will receive: dates and ids as their JSON strings.
    if (validate(JSON.parse(JSON.stringify(doc)))) return;
    const issues = fromAjvErrors(validate.errors ?? []);
    const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    logger.error(`Response of ${modelName} does not match its documented schema: ${detail}`);
    throw RestErrors.INVALID_RESPONSE({ detail: "The response did not match its documented schema" });
  };
}

const HOOKS: readonly ModelHookName[] = ["preCreate", "postCreate", "preUpdate", "postUpdate", "preDelete", "postDelete", "preList", "postList", "responseHandler"];

function modelRegistration<T>(name: string, path: string, model: Model<T>, analysis: ModelAnalysis, options: ModelRouterOptions<T>): ModelRegistration {
  const hooks: Partial<Record<ModelHookName, (...args: never[]) => unknown>> = {};
  for (const hook of HOOKS) {
    const fn = options[hook];
    if (fn) hooks[hook] = fn as (...args: never[]) => unknown;
  }
  return {
    name,
    path,
    modelName: model.modelName,
    model,
    ownerField: analysis.ownerField,
    // The registry holds every model's checks under one type; its readers (admin, MCP, sync)
    // hand them documents loaded from this same model, which is what they were typed for.
    permissions: options.permissions as MethodPermissions,
    hooks,
    mcp: options.mcp,
    sync: options.sync,
    admin: options.admin,
  };
}
