import type { OpenApiRegistry } from "../../kernel/openapi-registry.js";
import { syncOperationExtension } from "./sync-extension.js";
import { FIELDS_PARAMETER, fieldsParameter, responseFieldNames } from "./sparse-fields.js";
import { documentIdempotency, idempotencyRules } from "../idempotency/index.js";
import { BEARER_SCHEME, sharedResponses, type SharedResponse } from "../../kernel/openapi-shared-components.js";
import type { OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from "openapi3-ts/oas31";
import { MAX_PAGE, MAX_REGEX_LENGTH } from "./list-query.js";
import { listFilterParameter } from "./list-filter-openapi.js";
import type { ModelAnalysis, ModelSchemas } from "./model-analysis.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { modelOperationNames } from "./operation-names.js";
import { requiresAuthentication, type RestMethod } from "./permissions.js";

/**
 * Adds a component schema under `name`, or under a router-specific name when another router of
 * the same model already registered a different shape (e.g. other read-only fields).
 */
function addModelSchema(openapi: OpenApiRegistry, name: string, fallback: string, schema: SchemaObject): string {
  const existing = openapi.document().components?.schemas?.[name];
  if (existing === undefined) {
    openapi.addSchema(name, schema);
    return name;
  }
  if (JSON.stringify(existing) === JSON.stringify(schema)) return name;
  openapi.addSchema(fallback, schema);
  return fallback;
}

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/**
 * `/api/todo-items` → `ApiTodoItems`: the suffix that keeps a router's schema names and operation
 * ids apart from another router's of the same model.
 */
export function pathIdentifier(path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("") || "Root";
}

/**
 * Documents a model router in the app's OpenAPI 3.1 document: the model's response, create and
 * update schemas as components (descriptions, enums, defaults, refs, required), each permitted
 * operation with its parameters (list: `limit`, `page`, `sort` and one deepObject parameter per
 * query field), security (optional or required bearer auth, from the permission checks) and the
 * shared error responses. Methods nobody may call are left out. Operation ids are `listPosts`,
 * `createPost`, `readPost`, `updatePost`, `deletePost` (`openApi.singular`/`plural` rename them);
 * a second router of the same model, whose ids would clash, suffixes its ids with its path
 * (`listPosts_AdminPosts`), as it does its schema names. Every operation carries the router's one
 * tag, declared once in the document's `tags` list.
 *
 * @example
 * documentModelRouter(ctx.openapi, "/todos", analysis, schemas, options);
 */
export function documentModelRouter<T>(
  openapi: OpenApiRegistry,
  path: string,
  analysis: ModelAnalysis,
  schemas: ModelSchemas,
  options: ModelRouterOptions<T>,
  collection?: string,
): void {
  const stem = pathIdentifier(path);
  const name = analysis.modelName;
  const added = options.openApi?.responseProperties;
  const response: SchemaObject = { ...schemas.response, description: options.openApi?.description };
  if (added) response.properties = { ...schemas.response.properties, ...added };
  const responseFields = responseFieldNames(schemas.response, added);
  const responseName = addModelSchema(openapi, name, `${name}_${stem}`, response);
  const createName = addModelSchema(openapi, `${name}Create`, `${name}Create_${stem}`, schemas.create);
  const updateName = addModelSchema(openapi, `${name}Update`, `${name}Update_${stem}`, schemas.update);
  const tag = options.openApi?.tag ?? name;
  const tags = [tag];
  const itemPath = `${path.replace(/\/+$/, "")}/:id`;
  const allowed = (method: RestMethod) => (options.permissions[method]?.length ?? 0) > 0;
  const operationIds = modelOperationIds(openapi, name, stem, options, allowed);
  if (Object.keys(operationIds).length > 0) {
    openapi.addTag({ name: tag, description: options.openApi?.tagDescription ?? `${name} records` });
  }

  const operation = (method: RestMethod, base: OperationObject, errors: SharedResponse[]): OperationObject => {
    const checks = options.permissions[method] ?? [];
    const throttled = options.throttle?.[method] !== undefined || options.throttle?.all !== undefined;
    const responses: Record<string, ResponseObject | ReferenceObject> = { ...base.responses, ...sharedResponses(throttled ? [...errors, "TooManyRequests"] : errors) };
    const authRequired = requiresAuthentication(checks, method);
    return {
      ...base,
      tags,
      operationId: operationIds[method],
      security: authRequired ? [{ [BEARER_SCHEME]: [] }] : [{}, { [BEARER_SCHEME]: [] }],
      responses,
    };
  };
  const single = (status: number, description: string): Record<string, ResponseObject> => ({
    [status]: {
      description,
      content: { "application/json": { schema: { type: "object", required: ["data"], properties: { data: ref(responseName) } } } },
    },
  });
  const idParameter: ParameterObject = {
    name: "id",
    in: "path",
    required: true,
    description: `The ${name}'s id`,
    schema: analysis.objectIdKeys ? { type: "string", pattern: "^[0-9a-fA-F]{24}$" } : { type: "string" },
  };

  if (allowed("list")) {
    openapi.addOperation(
      "get",
      path,
      operation(
        "list",
        {
          summary: `List ${name} records`,
          description:
            `Pages through ${name} records visible to the caller.` +
            (analysis.queryFields.size > 0
              ? " Each filter parameter takes `field=value` (equal) or `field[$op]=value` (an operator, as a deepObject); " +
                "several filters narrow the list together."
              : ""),
          parameters: listParameters(analysis, schemas, responseFields),
          // Synced models: the sync client's codegen finds its collections by this (SPEC §2.8).
          ...(options.sync && collection ? { "x-svc-sync": syncOperationExtension(collection, options.sync, options.permissions as Parameters<typeof syncOperationExtension>[2]) } : {}),
          responses: {
            200: {
              description: `A page of ${name} records`,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["data", "limit", "page", "more", "total"],
                    properties: {
                      data: { type: "array", items: ref(responseName) },
                      limit: { type: "integer", description: "Page size used" },
                      page: { type: "integer", description: "Page number (1-based)" },
                      more: { type: "boolean", description: "Whether later pages exist" },
                      total: { type: "integer", description: "Number of matching records" },
                    },
                  },
                },
              },
            },
          },
        },
        ["BadRequest", "Unauthorized", "Forbidden"],
      ),
    );
  }
  // Models with revisions (optimisticConcurrency): ETag on record answers, If-Match on writes.
  const revisioned = analysis.revisionPath !== undefined;
  const tagged = (responses: Record<string, ResponseObject>): Record<string, ResponseObject> =>
    revisioned ? Object.fromEntries(Object.entries(responses).map(([status, answer]) => [status, { ...answer, headers: { ...answer.headers, ETag: ETAG_HEADER } }])) : responses;
  const ifMatch: ParameterObject[] = revisioned ? [IF_MATCH_PARAMETER] : [];
  const preconditionFailed: Record<string, ResponseObject> = revisioned
    ? { 412: { description: `The ${name} changed since the If-Match tag was read (REST_PRECONDITION_FAILED); nothing was written`, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } } } }
    : {};
  if (allowed("create")) {
    const create = operation(
      "create",
      {
        summary: `Create a ${name}`,
        requestBody: { required: true, content: { "application/json": { schema: ref(createName) } } },
        responses: tagged({
          201: {
            ...single(201, `The created ${name}`)[201]!,
            headers: { Location: { description: `The created ${name}'s URL (its read route, under the app's mount path)`, schema: { type: "string" } } },
          },
        }),
      },
      ["BadRequest", "Unauthorized", "Forbidden", "Conflict", "PayloadTooLarge", "UnsupportedMediaType"],
    );
    const idempotency = idempotencyRules(options.idempotency);
    openapi.addOperation("post", path, idempotency ? documentIdempotency(create, idempotency) : create);
  }
  if (allowed("read")) {
    openapi.addOperation(
      "get",
      itemPath,
      // 400: an id that is not valid percent-encoding (HTTP_MALFORMED_PATH).
      operation("read", { summary: `Read a ${name}`, parameters: [idParameter, fieldsParameter(responseFields)], responses: tagged(single(200, `The ${name}`)) }, [
        "BadRequest",
        "Unauthorized",
        "Forbidden",
        "NotFound",
      ]),
    );
  }
  if (allowed("update")) {
    openapi.addOperation(
      "patch",
      itemPath,
      operation(
        "update",
        {
          summary: `Update a ${name}`,
          description: "Changes only the fields given; null unsets an optional field.",
          parameters: [idParameter, ...ifMatch],
          requestBody: { required: true, content: { "application/json": { schema: ref(updateName) } } },
          responses: { ...tagged(single(200, `The updated ${name}`)), ...preconditionFailed },
        },
        ["BadRequest", "Unauthorized", "Forbidden", "NotFound", "Conflict", "PayloadTooLarge", "UnsupportedMediaType"],
      ),
    );
  }
  if (allowed("delete")) {
    openapi.addOperation(
      "delete",
      itemPath,
      operation(
        "delete",
        {
          summary: `Delete a ${name}`,
          description: analysis.softDelete ? "Soft delete: the record is marked deleted and hidden from reads." : undefined,
          parameters: [idParameter, ...ifMatch],
          responses: { 204: { description: `The ${name} was deleted` }, ...preconditionFailed },
        },
        ["BadRequest", "Unauthorized", "Forbidden", "NotFound"],
      ),
    );
  }
}

const ETAG_HEADER = {
  description: "The record's revision and a digest of this answer: send it back as If-Match to write only if nobody changed the record since, or as If-None-Match to get 304 while this answer holds",
  schema: { type: "string" },
} as const;

const IF_MATCH_PARAMETER: ParameterObject = {
  name: "If-Match",
  in: "header",
  required: false,
  description: "The ETag of the record as the client last read it: the write applies only if the record is still at that revision (else 412); `*` accepts any",
  schema: { type: "string" },
};

/** The list route's query parameters: `limit`, `page`, `sort`, `search` (with search fields) and one per query field. */
export function listParameters(analysis: ModelAnalysis, schemas: ModelSchemas, responseFields: readonly string[]): ParameterObject[] {
  const parameters: ParameterObject[] = [
    {
      name: "limit",
      in: "query",
      description: `Page size (default ${analysis.defaultLimit}, at most ${analysis.maxLimit})`,
      schema: { type: "integer", minimum: 1, maximum: analysis.maxLimit, default: analysis.defaultLimit },
    },
    { name: "page", in: "query", description: "Page number, 1-based", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 1 } },
    {
      name: "sort",
      in: "query",
      description: "Comma-separated fields, `-` for descending, e.g. `-created,title`",
      schema: { type: "string", default: sortText(analysis.defaultSort) },
    },
  ];
  if (analysis.searchFields.length > 0) {
    parameters.push({
      name: "search",
      in: "query",
      description: `Text looked for (case-insensitive, literally) in ${analysis.searchFields.join(", ")}`,
      schema: { type: "string", minLength: 1, maxLength: MAX_REGEX_LENGTH },
    });
  }
  const properties = schemas.response.properties ?? {};
  for (const [field, schemaType] of analysis.queryFields) {
    // Responses and clients say `id`; the parser takes `id` and `_id` alike.
    const name = field === "_id" ? "id" : field;
    parameters.push(listFilterParameter(name, stripNull(fieldSchemaAt(properties, name)), schemaType));
  }
  // A model with a filterable field of its own called `fields` keeps its filter (see list-query.ts).
  if (!analysis.queryFields.has(FIELDS_PARAMETER)) parameters.push(fieldsParameter(responseFields));
  return parameters;
}

function fieldSchemaAt(properties: Record<string, SchemaObject | ReferenceObject>, path: string): SchemaObject {
  let current: SchemaObject | ReferenceObject | undefined = { type: "object", properties };
  for (const segment of path.split(".")) {
    current = (current as SchemaObject | undefined)?.properties?.[segment];
  }
  const found = (current ?? {}) as SchemaObject;
  // Filters compare against one element of an array field.
  const isArray = found.type === "array" || (Array.isArray(found.type) && found.type.includes("array"));
  return isArray ? { description: found.description, ...(found.items as SchemaObject | undefined) } : found;
}

function stripNull(schema: SchemaObject): SchemaObject {
  const { readOnly: _readOnly, default: _default, ...rest } = schema;
  if (Array.isArray(rest.type)) {
    const types = rest.type.filter((type) => type !== "null");
    const result: SchemaObject = { ...rest, type: types.length === 1 ? types[0]! : types };
    if (result.enum) result.enum = result.enum.filter((value) => value !== null);
    return result;
  }
  return rest;
}

function sortText(sort: Readonly<Record<string, 1 | -1>>): string {
  return Object.entries(sort)
    .map(([path, direction]) => (direction === -1 ? `-${path}` : path))
    .join(",");
}

type OperationIds = Partial<Record<RestMethod, string>>;

/** The router's operation ids, suffixed with its path when another router already took them. */
function modelOperationIds<T>(
  openapi: OpenApiRegistry,
  modelName: string,
  stem: string,
  options: ModelRouterOptions<T>,
  allowed: (method: RestMethod) => boolean,
): OperationIds {
  const { one, many } = modelOperationNames(modelName, options.openApi ?? {});
  const wanted: Record<RestMethod, string> = { list: `list${many}`, create: `create${one}`, read: `read${one}`, update: `update${one}`, delete: `delete${one}` };
  const ids: OperationIds = {};
  for (const method of Object.keys(wanted) as RestMethod[]) if (allowed(method)) ids[method] = wanted[method];
  // One suffix for all of the router's ids, so a client sees its operations as one family.
  if (!Object.values(ids).some((id) => openapi.hasOperationId(id))) return ids;
  for (const method of Object.keys(ids) as RestMethod[]) ids[method] = `${ids[method]}_${stem}`;
  return ids;
}
