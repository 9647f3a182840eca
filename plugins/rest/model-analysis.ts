import { revisionPath } from "./record-revision.js";
import type { Model, PopulateOptions, Schema, SchemaType } from "mongoose";
import type { SchemaObject } from "openapi3-ts/oas31";
import { isUserSchema, MANAGED_USER_FIELDS } from "../../contracts/user-fields.js";
import { RestErrors } from "./errors.js";
import { mongooseJsonSchema } from "./json-schema/mongoose-json-schema.js";
import type { ModelRouterOptions, RestModel } from "./model-router-options.js";
import { usesSoftDelete } from "./schema/is-deleted-plugin.js";
import { SERVER_MANAGED_PATHS } from "./server-managed-paths.js";

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

/**
 * Everything a model router needs to know about its model, worked out once when the router is
 * built so no request walks the schema.
 */
export interface ModelAnalysis {
  readonly modelName: string;
  readonly ownerField: string;
  /** The schema has the owner field (so create sets it from the user). */
  readonly hasOwnerPath: boolean;
  /** DELETE sets `deleted: true` (the model uses `isDeletedPlugin`). */
  readonly softDelete: boolean;
  /** The version key, when the schema has `optimisticConcurrency: true`: answers' ETags name it, If-Match checks it. */
  readonly revisionPath?: string;
  /** `_id` is an ObjectId (path ids must be 24 hex characters). */
  readonly objectIdKeys: boolean;
  /** Top-level fields clients may not write. */
  readonly readOnlyPaths: ReadonlySet<string>;
  /**
   * Fields only a caller with `admin: true` writes (`adminOnlyFields`; by default a user model's
   * framework-managed `MANAGED_USER_FIELDS`), so "my own user record" never becomes "my own
   * privileges".
   */
  readonly adminOnlyPaths: ReadonlySet<string>;
  /** Top-level `select: false` fields (kept out of create/update responses too). */
  readonly hiddenPaths: readonly string[];
  /** Top-level `DateOnly` fields (normalized on lean reads). */
  readonly dateOnlyPaths: readonly string[];
  /**
   * The model has virtuals, getters or a toJSON transform, so responses go through hydrated
   * documents and `toJSON`; otherwise lean reads are shaped directly.
   */
  readonly richSerialization: boolean;
  /** Filterable fields and their schema types. */
  readonly queryFields: ReadonlyMap<string, SchemaType>;
  /** Text fields `?search=` looks in (empty: no search parameter). */
  readonly searchFields: readonly string[];
  /** Paths a client may sort on. */
  readonly sortablePaths: ReadonlySet<string>;
  readonly defaultSort: Readonly<Record<string, 1 | -1>>;
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/**
 * Analyses a model for a router; throws `REST_UNKNOWN_PATH` / `REST_INVALID_OPTION` for options
 * that name fields the schema does not have.
 *
 * @example
 * const analysis = analyzeModel(Todo, { permissions: {}, queryFields: ["done"] });
 */
export function analyzeModel<T>(restModel: RestModel<T>, options: ModelRouterOptions<T>): ModelAnalysis {
  const model = restModel as unknown as Model<T>;
  const schema = model.schema;
  const modelName = model.modelName;
  const ownerField = options.ownerField ?? "ownerId";
  const hasOwnerPath = schema.path(ownerField) !== undefined;
  const idType = schema.path("_id");
  const objectIdKeys = idType === undefined || idType.instance === "ObjectId";

  const readOnly = new Set<string>(SERVER_MANAGED_PATHS);
  // Records with string ids (e.g. synced models, whose clients mint UUIDs) take their id on create.
  if (!objectIdKeys && (idType as unknown as { defaultValue?: unknown }).defaultValue === undefined) readOnly.delete("_id");
  readOnly.add(ownerField);
  for (const field of options.readOnlyFields ?? []) readOnly.add(field);

  const hiddenPaths: string[] = [];
  const dateOnlyPaths: string[] = [];
  let hasGetters = false;
  schema.eachPath((path, schemaType) => {
    const topLevel = !path.includes(".");
    if (topLevel && schemaType.options?.select === false) hiddenPaths.push(path);
    if (topLevel && schemaType.options?.readOnly === true) readOnly.add(path);
    if (topLevel && schemaType.instance === "DateOnly") dateOnlyPaths.push(path);
    if (((schemaType as unknown as { getters?: unknown[] }).getters?.length ?? 0) > 0) hasGetters = true;
  });
  const userVirtuals = Object.keys((schema as unknown as { virtuals: Record<string, unknown> }).virtuals).filter((name) => name !== "id");
  const toJSON = schema.get("toJSON") as { transform?: unknown } | undefined;
  const richSerialization = userVirtuals.length > 0 || hasGetters || typeof toJSON?.transform === "function";

  const queryFields = new Map<string, SchemaType>();
  for (const field of options.queryFields ?? []) {
    const schemaType = field === "id" ? schema.path("_id") : schema.path(field);
    if (!schemaType) throw RestErrors.UNKNOWN_PATH(modelName, "queryFields", field);
    if (hiddenPaths.includes(field)) throw RestErrors.INVALID_OPTION(modelName, "queryFields", `"${field}" is select: false`);
    queryFields.set(field === "id" ? "_id" : field, schemaType);
  }

  const searchFields: string[] = [];
  for (const field of options.searchFields ?? []) {
    const schemaType = schema.path(field);
    if (!schemaType) throw RestErrors.UNKNOWN_PATH(modelName, "searchFields", field);
    const element = schemaType.instance === "Array" ? schemaType.getEmbeddedSchemaType() : schemaType;
    if (element?.instance !== "String") throw RestErrors.INVALID_OPTION(modelName, "searchFields", `"${field}" is not a text field`);
    if (schemaType.options?.select === false) throw RestErrors.INVALID_OPTION(modelName, "searchFields", `"${field}" is select: false`);
    searchFields.push(field);
  }

  const sortablePaths = new Set<string>();
  schema.eachPath((path, schemaType) => {
    if (schemaType.options?.select === false) return;
    if (path.includes(".$")) return;
    sortablePaths.add(path);
  });

  // JavaScript callers get no compile-time check: a router without permissions would fail on its first request.
  if (typeof options.permissions !== "object" || options.permissions === null || Array.isArray(options.permissions)) {
    throw RestErrors.INVALID_OPTION(modelName, "permissions", "is required: an object of permission checks per method (a method left out is closed)");
  }
  const maxLimit = options.maxLimit ?? MAX_LIMIT;
  const defaultLimit = options.defaultLimit ?? Math.min(DEFAULT_LIMIT, maxLimit);
  if (!Number.isInteger(maxLimit) || maxLimit < 1) throw RestErrors.INVALID_OPTION(modelName, "maxLimit", "must be a positive integer");
  if (!Number.isInteger(defaultLimit) || defaultLimit < 1 || defaultLimit > maxLimit) {
    throw RestErrors.INVALID_OPTION(modelName, "defaultLimit", `must be an integer from 1 to maxLimit (${maxLimit})`);
  }

  return {
    modelName,
    ownerField,
    hasOwnerPath,
    softDelete: usesSoftDelete(schema),
    revisionPath: revisionPath(schema),
    objectIdKeys,
    readOnlyPaths: readOnly,
    adminOnlyPaths: new Set((options.adminOnlyFields ?? (isUserSchema(schema) ? MANAGED_USER_FIELDS : [])).filter((field) => !readOnly.has(field) && schema.path(field) !== undefined)),
    hiddenPaths,
    dateOnlyPaths,
    richSerialization,
    queryFields,
    searchFields,
    sortablePaths,
    defaultSort: defaultSortOf(schema, options.sort, sortablePaths, modelName),
    defaultLimit,
    maxLimit,
  };
}

function defaultSortOf(
  schema: Schema,
  sort: ModelRouterOptions<unknown>["sort"],
  sortable: ReadonlySet<string>,
  modelName: string,
): Record<string, 1 | -1> {
  let result: Record<string, 1 | -1>;
  if (sort === undefined) {
    result = schema.path("created") ? { created: -1 } : {};
  } else if (typeof sort === "string") {
    result = {};
    for (const part of sort.split(",").map((entry) => entry.trim()).filter(Boolean)) {
      const path = part.replace(/^-/, "");
      if (!sortable.has(path)) throw RestErrors.UNKNOWN_PATH(modelName, "sort", path);
      result[path] = part.startsWith("-") ? -1 : 1;
    }
  } else {
    result = { ...sort };
    for (const path of Object.keys(result)) if (!sortable.has(path)) throw RestErrors.UNKNOWN_PATH(modelName, "sort", path);
  }
  // A unique last key makes page boundaries stable when the other keys tie.
  if (!("_id" in result)) result._id = 1;
  return result;
}

/** The request and response schemas of a router's model. */
export interface ModelSchemas {
  readonly response: SchemaObject;
  readonly create: SchemaObject;
  readonly update: SchemaObject;
}

/**
 * Derives the router's JSON schemas (response with populated shapes; create and update without
 * read-only and excluded fields).
 *
 * @example
 * const { create } = modelSchemas(Todo, analysis, options, populated);
 */
export function modelSchemas<T>(
  model: Model<T>,
  analysis: ModelAnalysis,
  options: ModelRouterOptions<T>,
  populated: ReadonlyMap<string, SchemaObject>,
): ModelSchemas {
  const excludeCreate = new Set([...analysis.readOnlyPaths, ...(options.validation?.excludeFromCreate ?? [])]);
  const excludeUpdate = new Set([...analysis.readOnlyPaths, ...(options.validation?.excludeFromUpdate ?? []), "_id"]);
  const create = mongooseJsonSchema(model.schema, { mode: "create", readOnlyPaths: excludeCreate });
  // `_id` is writable only when it is the client's to mint (analyzeModel: a string id with no
  // default), and then a create without one cannot be stored.
  if (!excludeCreate.has("_id") && create.properties?._id) {
    create.required = [...new Set([...(create.required ?? []), "_id"])];
  }
  return {
    response: mongooseJsonSchema(model.schema, { mode: "response", readOnlyPaths: analysis.readOnlyPaths, populated }),
    create,
    update: mongooseJsonSchema(model.schema, { mode: "update", readOnlyPaths: excludeUpdate }),
  };
}

/** The mongoose populate options and documented shapes of a router's `populatePaths`. */
export interface PopulatePlan {
  readonly populate: PopulateOptions[];
  readonly shapes: ReadonlyMap<string, SchemaObject>;
}

/**
 * Resolves `populatePaths` against the models they reference (at start, when every model is
 * declared): each path must be a reference, each field must exist and not be `select: false`.
 *
 * @example
 * planPopulate(Todo, [{ path: "assigneeId", fields: ["name"] }]);
 */
export function planPopulate<T>(model: Model<T>, paths: ModelRouterOptions<T>["populatePaths"]): PopulatePlan {
  const populate: PopulateOptions[] = [];
  const shapes = new Map<string, SchemaObject>();
  for (const entry of paths ?? []) {
    const schemaType = model.schema.path(entry.path);
    if (!schemaType) throw RestErrors.UNKNOWN_PATH(model.modelName, "populatePaths", entry.path);
    const element = schemaType.instance === "Array" ? schemaType.getEmbeddedSchemaType() : schemaType;
    const ref = element?.options?.ref;
    if (typeof ref !== "string") {
      throw RestErrors.INVALID_OPTION(model.modelName, "populatePaths", `"${entry.path}" is not a reference with a model name (ref)`);
    }
    const target = model.db.model(ref);
    const properties: Record<string, SchemaObject> = { _id: { type: "string", pattern: "^[0-9a-fA-F]{24}$" } };
    for (const field of entry.fields) {
      const fieldType = target.schema.path(field);
      if (!fieldType) throw RestErrors.UNKNOWN_PATH(ref, `populatePaths[${entry.path}].fields`, field);
      if (fieldType.options?.select === false) {
        throw RestErrors.INVALID_OPTION(model.modelName, "populatePaths", `"${ref}.${field}" is select: false`);
      }
      const fieldSchema = mongooseJsonSchema(target.schema, { mode: "response" }).properties?.[field.split(".")[0]!];
      properties[field] = (fieldSchema as SchemaObject | undefined) ?? {};
    }
    const shape: SchemaObject = { type: "object", properties, description: `The referenced ${ref} (fields: ${entry.fields.join(", ") || "_id"})` };
    shapes.set(entry.path, schemaType.instance === "Array" ? { type: "array", items: shape } : { anyOf: [shape, { type: "null" }] });
    populate.push({ path: entry.path, select: ["_id", ...entry.fields].join(" "), model: target });
  }
  return { populate, shapes };
}
