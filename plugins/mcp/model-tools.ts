import type { Request } from "express";
import type { ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import type { ModelOperationResult, ModelRegistration, ServedModel } from "../../contracts/model-registry.js";
import { FIELDS_PARAMETER, MAX_IN_VALUES, REST_METHODS, type RestMethod } from "../rest/index.js";
import { McpErrors } from "./errors.js";
import { listErrorInArguments } from "./list-error-paths.js";
import type { ServedTool } from "./served-tool.js";
import { toolArguments } from "./tool-arguments.js";

/** MCP filter operators (no `$`: MCP arguments never carry `$` keys) and the list parser's. */
const OPERATORS: Readonly<Record<string, string>> = {
  eq: "$eq",
  ne: "$ne",
  gt: "$gt",
  gte: "$gte",
  lt: "$lt",
  lte: "$lte",
  in: "$in",
  nin: "$nin",
  exists: "$exists",
  regex: "$regex",
};
/** REST's operator meanings that speak of the query string, in the terms of a JSON argument. */
const OPERATOR_MEANING: Readonly<Record<string, string>> = {
  $eq: "Equal to (the same as giving the value itself)",
  $in: `Equal to any of these values (1 to ${MAX_IN_VALUES})`,
  $nin: `Equal to none of these values (1 to ${MAX_IN_VALUES})`,
};
const SCALAR: SchemaObject = { type: ["string", "number", "boolean"] };
const ID: SchemaObject = { type: "string", minLength: 1, maxLength: 128, description: "The record's id" };

/**
 * The model tools of one router with `mcp`: `<model>_list`, `_read`, `_create`, `_update`,
 * `_delete` for the configured `methods` that REST serves (a method without permission checks is
 * closed to everyone, so it gets no tool). Each runs the router's own operation — its
 * permissions, query filter, hooks, validation and response shaping — as the caller of
 * `POST /mcp`, so what REST refuses, the tool refuses with the same error. `excludeFields` are
 * left out of every schema and result, and refused in `data`, filters and `sort` (and `search`
 * when it looks in one).
 *
 * @example
 * const tools = modelTools(registration, registration.served()!); // todo_list, todo_read, ...
 */
export function modelTools(registration: ModelRegistration, served: ServedModel): ServedTool[] {
  const options = registration.mcp ?? {};
  const excluded = new Set(options.excludeFields ?? []);
  const stem = toolStem(registration.modelName);
  const model = registration.modelName;
  const methods = toolMethods(registration);
  const isExcluded = (path: string) => [...excluded].some((field) => path === field || path.startsWith(`${field}.`));
  // An update replaces a top-level object or array whole (REST's PATCH), so one holding an excluded
  // field (`meta` of `meta.internal`) would lose the value the client can neither see nor send.
  const holders = new Set([...excluded].filter((path) => path.includes(".")).map((path) => path.split(".")[0]!));
  const run = (method: RestMethod, req: Request, parts: OperationParts) => served.operations[method](operationRequest(req, parts)).then((result) => present(result, excluded));

  const tools: Partial<Record<RestMethod, ServedTool>> = {};
  const idOnly = objectSchema({ id: ID }, ["id"]);

  const list = listSchemas(served, isExcluded);
  tools.list = {
    name: `${stem}_list`,
    description: `Lists ${model} records the caller may see, a page at a time (what GET ${registration.path} answers): {data, limit, page, more, total}.`,
    arguments: toolArguments(list.advertised, list.checked),
    annotations: { readOnlyHint: true },
    run: (args, req) => run("list", req, { query: listQuery(args, isExcluded, list.searchable) }).catch((error: unknown) => Promise.reject(listErrorInArguments(error, list.filterNames))),
  };
  const readFields = list.advertised.properties?.fields as SchemaObject | undefined;
  tools.read = {
    name: `${stem}_read`,
    description: `Reads one ${model} by id (what GET ${registration.path}/{id} answers): {data}.`,
    arguments: readFields
      ? toolArguments(objectSchema({ id: ID, fields: readFields }, ["id"]), objectSchema({ id: ID, fields: CHECKED_FIELDS }, ["id"]))
      : toolArguments(idOnly),
    annotations: { readOnlyHint: true },
    run: (args, req) => run("read", req, { id: args.id as string, query: pickedFields(args, isExcluded) }),
  };
  tools.create = {
    name: `${stem}_create`,
    description: `Creates a ${model} from \`data\` (what POST ${registration.path} does): {data}.`,
    arguments: toolArguments(objectSchema({ data: withoutFields(served.schemas.create, excluded) }, ["data"]), objectSchema({ data: { type: "object" } }, ["data"])),
    run: (args, req) => run("create", req, { body: acceptedData(args.data, isExcluded) }),
  };
  tools.update = {
    name: `${stem}_update`,
    description: `Changes the fields of one ${model} given in \`data\`; null empties an optional field (what PATCH ${registration.path}/{id} does): {data}.`,
    arguments: toolArguments(
      objectSchema({ id: ID, data: withoutFields(served.schemas.update, [...excluded, ...holders]) }, ["id", "data"]),
      objectSchema({ id: ID, data: { type: "object" } }, ["id", "data"]),
    ),
    run: (args, req) => run("update", req, { id: args.id as string, body: acceptedData(args.data, isExcluded, holders) }),
  };
  tools.delete = {
    name: `${stem}_delete`,
    description: `Deletes one ${model} by id (what DELETE ${registration.path}/{id} does): {deleted: true}.`,
    arguments: toolArguments(idOnly),
    annotations: { destructiveHint: true, idempotentHint: true },
    run: (args, req) => run("delete", req, { id: args.id as string }),
  };
  return methods.map((method) => tools[method]!);
}

/** The names of a router's model tools (known before the router starts). */
export function modelToolNames(registration: ModelRegistration): string[] {
  const stem = toolStem(registration.modelName);
  return toolMethods(registration).map((method) => `${stem}_${method}`);
}

/** The configured methods REST serves (a method without permission checks is closed to everyone). */
function toolMethods(registration: ModelRegistration): RestMethod[] {
  return (registration.mcp?.methods ?? REST_METHODS).filter((method) => (registration.permissions[method]?.length ?? 0) > 0);
}

/** `TodoItem` → `todo_item`. */
export function toolStem(modelName: string): string {
  return modelName
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

interface OperationParts {
  readonly id?: string;
  readonly query?: Record<string, unknown>;
  readonly body?: unknown;
}

/**
 * The `POST /mcp` request as the operation sees it: the same caller, headers and request id, with
 * the tool's arguments as its path id, query and body — so hooks get a request like REST's.
 */
function operationRequest(req: Request, parts: OperationParts): Request {
  return Object.create(req, {
    params: { value: parts.id === undefined ? {} : { id: parts.id }, enumerable: true },
    query: { value: parts.query ?? {}, enumerable: true },
    body: { value: parts.body, writable: true, enumerable: true },
  }) as Request;
}

/** The operation's answer with excluded fields taken out; a delete answers `{deleted: true}`. */
function present(result: ModelOperationResult, excluded: ReadonlySet<string>): unknown {
  if (result.body === undefined) return { deleted: true };
  if (excluded.size === 0) return result.body;
  const body = result.body as { data?: unknown };
  const strip = (doc: unknown) => (isObject(doc) ? withoutPaths(doc, excluded) : doc);
  const data = Array.isArray(body.data) ? body.data.map(strip) : strip(body.data);
  return { ...body, data };
}

function withoutPaths(doc: Record<string, unknown>, paths: ReadonlySet<string>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...doc };
  for (const path of paths) {
    const [head, ...rest] = path.split(".");
    if (!(head! in copy)) continue;
    const inner = new Set([rest.join(".")]);
    const value = copy[head!];
    if (rest.length === 0) delete copy[head!];
    else if (isObject(value)) copy[head!] = withoutPaths(value, inner);
    // A path into an array of subdocuments (`items.secret`) names a field of every element.
    else if (Array.isArray(value)) copy[head!] = value.map((element) => (isObject(element) ? withoutPaths(element, inner) : element));
  }
  return copy;
}

/**
 * `data` as sent, unless it names an excluded field (at any depth of a dotted exclusion) or, for an
 * update, replaces one of the `holders` of an excluded field.
 */
function acceptedData(data: unknown, isExcluded: (path: string) => boolean, holders: ReadonlySet<string> = new Set()): unknown {
  if (!isObject(data)) return data;
  const replaced = Object.keys(data).filter((key) => holders.has(key));
  if (replaced.length > 0) {
    throw McpErrors.FIELD_NOT_ACCEPTED({
      detail: `${replaced.join(", ")}: cannot be changed by MCP clients (an update replaces it whole, erasing what they cannot see)`,
      meta: { fields: replaced.map((path) => ({ path: `data.${path}`, message: "cannot be changed by MCP clients", kind: "holdsExcluded" })) },
    });
  }
  const named: string[] = [];
  const visit = (value: Record<string, unknown>, prefix: string) => {
    for (const [key, inner] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (isExcluded(path)) named.push(path);
      else if (isObject(inner)) visit(inner, path);
      // Elements of an array of subdocuments share the array's path (`items.secret`), as in mongoose.
      else if (Array.isArray(inner)) for (const element of inner) if (isObject(element)) visit(element, path);
    }
  };
  visit(data, "");
  if (named.length > 0) throw notAccepted(named, "data");
  return data;
}

/** `paths` (within the argument `where`, if given) refused: they name excluded fields. */
function notAccepted(paths: readonly string[], where?: string) {
  return McpErrors.FIELD_NOT_ACCEPTED({
    detail: `${paths.join(", ")}: not available to MCP clients`,
    meta: { fields: paths.map((path) => ({ path: where ? `${where}.${path}` : path, message: "is not available to MCP clients", kind: "excluded" })) },
  });
}

/**
 * The list tool's arguments turned into the list route's query string values. Names of excluded
 * fields are refused before the route runs, whatever the values, so the answer says nothing about
 * what the field holds.
 */
function listQuery(args: Record<string, unknown>, isExcluded: (path: string) => boolean, searchable: boolean): Record<string, unknown> {
  const query: Record<string, unknown> = { ...pickedFields(args, isExcluded) };
  if (args.limit !== undefined) query.limit = String(args.limit);
  if (args.page !== undefined) query.page = String(args.page);
  if (typeof args.search === "string") {
    if (!searchable) throw notAccepted(["search"]);
    query.search = args.search;
  }
  const filter = isObject(args.filter) ? args.filter : {};
  const filtered = Object.keys(filter).filter((path) => isExcluded(path));
  if (filtered.length > 0) throw notAccepted(filtered, "filter");
  if (typeof args.sort === "string") {
    const named = args.sort
      .split(",")
      .map((part) => part.trim().replace(/^-/, ""))
      .filter((path) => isExcluded(path));
    if (named.length > 0) throw notAccepted(named, "sort");
    query.sort = args.sort;
  }
  for (const [field, condition] of Object.entries(filter)) {
    if (!isObject(condition)) {
      query[field] = String(condition);
      continue;
    }
    // Operator names were checked against OPERATORS by the argument schema.
    for (const [op, value] of Object.entries(condition)) {
      query[`${field}[${OPERATORS[op]}]`] = Array.isArray(value) ? value.map(String) : String(value);
    }
  }
  return query;
}

/**
 * The list tool's schemas from the list route's documented parameters: `limit`, `page`, `sort`,
 * `search` (when none of its fields is excluded) and `filter`, one property per filterable field
 * that is not excluded — a value (equality) or an object of operators. The checked schema also
 * lets through `search` and filters on excluded fields, for `listQuery` to refuse them with
 * MCP_FIELD_NOT_ACCEPTED rather than as unknown arguments.
 */
function listSchemas(served: ServedModel, isExcluded: (path: string) => boolean): { advertised: SchemaObject; checked: SchemaObject; searchable: boolean; filterNames: ReadonlySet<string> } {
  const properties: Record<string, SchemaObject> = {};
  const filters: Record<string, SchemaObject> = {};
  const filterNames: string[] = [];
  const searchable = served.searchFields.length > 0 && !served.searchFields.some(isExcluded);
  for (const parameter of served.listParameters as ParameterObject[]) {
    const schema = (parameter.schema ?? {}) as SchemaObject;
    if (parameter.style === "deepObject") {
      filterNames.push(parameter.name);
      if (!isExcluded(parameter.name)) filters[parameter.name] = filterSchema(parameter, schema);
    } else if (parameter.name === FIELDS_PARAMETER) {
      properties.fields = fieldsArgument(schema, isExcluded);
    } else if (parameter.name !== "search" || searchable) {
      properties[parameter.name] = { ...schema, description: parameter.description };
    }
  }
  const fields = Object.keys(filters);
  if (fields.length > 0) {
    properties.filter = {
      type: "object",
      description: "Narrows the list: {field: value} for equality, {field: {gte: 1, lt: 5}} for operators; several narrow together.",
      properties: filters,
      additionalProperties: false,
    };
  }
  const checkedProperties: Record<string, SchemaObject> = {
    limit: { type: "integer" },
    page: { type: "integer" },
    sort: { type: "string" },
  };
  if (served.searchFields.length > 0) checkedProperties.search = { type: "string" };
  if (properties.fields) checkedProperties.fields = CHECKED_FIELDS;
  if (filterNames.length > 0) {
    checkedProperties.filter = {
      type: "object",
      propertyNames: { enum: filterNames },
      additionalProperties: {
        anyOf: [
          SCALAR,
          {
            type: "object",
            minProperties: 1,
            propertyNames: { enum: Object.keys(OPERATORS) },
            additionalProperties: { anyOf: [SCALAR, { type: "array", items: SCALAR }] },
          },
        ],
      },
    };
  }
  return { advertised: objectSchema(properties, []), checked: objectSchema(checkedProperties, []), searchable, filterNames: new Set(filterNames) };
}

/** What `fields` must be before `pickedFields` refuses excluded names as such. */
const CHECKED_FIELDS: SchemaObject = { type: "array", items: { type: "string" }, minItems: 1 };

/** The `fields` argument: REST's parameter as a JSON array of the names an MCP client may see. */
function fieldsArgument(parameter: SchemaObject, isExcluded: (path: string) => boolean): SchemaObject {
  const names = (((parameter.items as SchemaObject | undefined)?.enum ?? []) as string[]).filter((name) => !isExcluded(name));
  return {
    type: "array",
    items: { type: "string", enum: names },
    minItems: 1,
    uniqueItems: true,
    description: "Only these fields of each record (the id always comes): fewer tokens when a few are enough, e.g. [\"title\", \"done\"].",
  };
}

/** `fields` as the route's query value, unless it names an excluded field. */
function pickedFields(args: Record<string, unknown>, isExcluded: (path: string) => boolean): Record<string, unknown> {
  if (!Array.isArray(args.fields)) return {};
  const named = (args.fields as string[]).filter((name) => isExcluded(name));
  if (named.length > 0) throw notAccepted(named, FIELDS_PARAMETER);
  return { [FIELDS_PARAMETER]: (args.fields as string[]).join(",") };
}

/** One filter field: a value (`$eq`) or an object of the operators its deepObject parameter documents. */
function filterSchema(parameter: ParameterObject, schema: SchemaObject): SchemaObject {
  const operators: Record<string, SchemaObject> = {};
  const documented = (schema.properties ?? {}) as Record<string, SchemaObject>;
  const value = documented.$eq ?? SCALAR;
  for (const [name, op] of Object.entries(OPERATORS)) {
    const operand = documented[op];
    if (!operand) continue;
    const description = OPERATOR_MEANING[op] ?? operand.description;
    operators[name] =
      op === "$in" || op === "$nin"
        ? { type: "array", items: { ...value, description: undefined }, minItems: 1, maxItems: MAX_IN_VALUES, description }
        : { ...operand, description };
  }
  return {
    description: filterDescription(parameter, value, Object.keys(operators)),
    anyOf: [{ ...value, description: "Equal to this value" }, { type: "object", properties: operators, additionalProperties: false, minProperties: 1 }],
  };
}

/**
 * A filter field's description in the tool's own terms: REST's opening (the field, what it is) and
 * then how MCP arguments filter — a value, or an object of operators named without `$` — with
 * examples in JSON, since REST's `field[$op]=value` examples would mislead a model.
 */
function filterDescription(parameter: ParameterObject, value: SchemaObject, operators: readonly string[]): string {
  const name = parameter.name;
  const rest = parameter.description ?? "";
  const cut = rest.indexOf(`\`${name}=value\``);
  const opening = (cut > 0 ? rest.slice(0, cut) : `Filter on \`${name}\`.`).trim();
  const [first, second] = sampleValues(value).map((sample) => JSON.stringify(sample));
  const ranged = operators.includes("gte") && operators.includes("lt") ? `{"gte": ${first}, "lt": ${second}}` : `{"in": [${first}, ${second}]}`;
  return `${opening} A value keeps records equal to it; an object applies operators (all must hold): ${operators.map((op) => `\`${op}\``).join(" ")}. Examples: \`${first}\`, \`${ranged}\`, \`{"exists": false}\`.`;
}

/** Two plausible values of a filter field, for its examples. */
function sampleValues(schema: SchemaObject): [unknown, unknown] {
  if (schema.enum && schema.enum.length > 0) return [schema.enum[0], schema.enum[1] ?? schema.enum[0]];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("boolean")) return [true, false];
  if (types.includes("integer") || types.includes("number")) {
    const low = typeof schema.minimum === "number" ? schema.minimum : 1;
    const high = typeof schema.maximum === "number" ? schema.maximum : low + 10;
    return [low, Math.max(low, Math.min(high, low + 2))];
  }
  if (schema.format === "date-time" || schema.format === "date") return ["2026-01-01", "2026-02-01"];
  return ["a", "m"];
}

/**
 * The create or update schema without the excluded fields: a dotted path is taken out of the
 * nested object's schema (and its `required`), as it is from results.
 */
function withoutFields(schema: SchemaObject, excluded: Iterable<string>): SchemaObject {
  if (!schema.properties) return schema;
  const properties = { ...schema.properties } as Record<string, SchemaObject>;
  const removed = new Set<string>();
  for (const path of excluded) {
    const [head, ...rest] = path.split(".") as [string, ...string[]];
    if (!(head in properties)) continue;
    if (rest.length === 0) {
      delete properties[head];
      removed.add(head);
    } else {
      const inner = properties[head]!;
      // An array of subdocuments: the path names a field of its element schema.
      properties[head] =
        inner.type === "array" && inner.items && typeof inner.items === "object" && !Array.isArray(inner.items)
          ? { ...inner, items: withoutFields(inner.items as SchemaObject, [rest.join(".")]) }
          : withoutFields(inner, [rest.join(".")]);
    }
  }
  const required = schema.required?.filter((field) => !removed.has(field));
  const { required: _required, ...others } = schema;
  return { ...others, properties, ...(required && required.length > 0 ? { required } : {}) };
}

function objectSchema(properties: Record<string, SchemaObject>, required: string[]): SchemaObject {
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
