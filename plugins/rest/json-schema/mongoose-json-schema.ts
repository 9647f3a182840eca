import type { SchemaType } from "mongoose";

/** The part of a mongoose schema the derivation reads (any schema, whatever its generics). */
export interface SchemaPaths {
  eachPath(fn: (path: string, type: SchemaType) => void): unknown;
}
import type { SchemaObject } from "openapi3-ts/oas31";

/**
 * Which JSON schema of a model to derive:
 * - `response`: what routes answer with (every readable field, `_id` and `id`, read-only fields
 *   marked `readOnly`, `select: false` fields left out);
 * - `create`: a POST body (writable fields only, required fields without a default required);
 * - `update`: a PATCH body (writable fields only, no top-level field required; a value sent
 *   replaces the field whole, so inside it — array items, subdocuments — `create`'s rules apply).
 */
export type JsonSchemaMode = "response" | "create" | "update";

export interface JsonSchemaOptions {
  mode: JsonSchemaMode;
  /** Top-level paths clients may not write (owner, timestamps...): left out of request schemas. */
  readOnlyPaths?: ReadonlySet<string>;
  /** Response schemas of populated paths (they replace the id). */
  populated?: ReadonlyMap<string, SchemaObject>;
}

const OBJECT_ID_PATTERN = "^[0-9a-fA-F]{24}$";

/** Paths mongoose manages that are never part of any request or response schema. */
const INTERNAL_PATHS = new Set(["__v"]);

interface TreeNode {
  schemaType?: SchemaType;
  children: Map<string, TreeNode>;
}

/**
 * Derives a JSON schema (draft 2020-12 / OpenAPI 3.1 compatible) from a mongoose schema. The same
 * schema validates request bodies (ajv) and documents them (OpenAPI): descriptions, enums,
 * defaults, min/max, lengths, patterns and refs (`x-ref`) come from the schema type options.
 * Optional fields accept `null` where the model can take it (see `acceptsNull`): never an array
 * in a request body, except as a top-level PATCH value, which restores the array's default.
 *
 * @example
 * mongooseJsonSchema(Todo.schema, { mode: "create", readOnlyPaths: new Set(["ownerId"]) });
 * // { type: "object", properties: { title: { type: "string", description: "..." } }, required: ["title"], additionalProperties: false }
 */
export function mongooseJsonSchema(schema: SchemaPaths, options: JsonSchemaOptions): SchemaObject {
  return objectSchema(schema, options, "", true);
}

function objectSchema(schema: SchemaPaths, options: JsonSchemaOptions, prefix: string, topLevel: boolean): SchemaObject {
  const tree: TreeNode = { children: new Map() };
  schema.eachPath((path, schemaType) => {
    if (INTERNAL_PATHS.has(path) || path.includes(".$*")) return;
    let node = tree;
    for (const segment of path.split(".")) {
      let child = node.children.get(segment);
      if (!child) {
        child = { children: new Map() };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.schemaType = schemaType;
  });
  const result = treeSchema(tree, options, prefix, topLevel);
  if (topLevel && options.mode === "response") {
    result.properties = { ...result.properties, id: { type: "string", description: "The record's id (same as _id)", readOnly: true } };
    result.required = [...new Set([...(result.required ?? []), "id"])];
  }
  return result;
}

function treeSchema(node: TreeNode, options: JsonSchemaOptions, prefix: string, topLevel: boolean): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  for (const [name, child] of node.children) {
    const fullPath = prefix ? `${prefix}.${name}` : name;
    const schemaType = child.schemaType;
    const readOnly = isReadOnly(fullPath, schemaType, options, topLevel);
    if (readOnly && options.mode !== "response") continue;
    if (schemaType && options.mode === "response" && schemaType.options?.select === false) continue;

    let property: SchemaObject;
    let isRequired = false;
    if (schemaType) {
      const populated = topLevel ? options.populated?.get(fullPath) : undefined;
      property = populated ?? fieldSchema(schemaType, options, fullPath);
      isRequired = requiredIn(schemaType, options.mode, fullPath, topLevel);
      if (acceptsNull(schemaType, options.mode, fullPath, topLevel)) property = nullable(property);
    } else {
      // A nested plain object (`{address: {city: String}}`): its own object of properties.
      property = treeSchema(child, options, fullPath, false);
      if (Object.keys(property.properties ?? {}).length === 0) continue;
      if (wholeValues(options.mode, topLevel) && (property.required?.length ?? 0) > 0) isRequired = true;
    }
    if (readOnly) property = { ...property, readOnly: true };
    properties[name] = property;
    if (isRequired) required.push(name);
  }
  const result: SchemaObject = { type: "object", properties };
  if (required.length > 0) result.required = required;
  // Responses may grow fields (virtuals, hooks); request bodies are closed.
  if (options.mode !== "response") result.additionalProperties = false;
  return result;
}

function isReadOnly(path: string, schemaType: SchemaType | undefined, options: JsonSchemaOptions, topLevel: boolean): boolean {
  // A record's own id is the server's; subdocument ids may be echoed back in PATCH bodies.
  if (topLevel && path === "_id") {
    return options.mode !== "create" || schemaType?.instance === "ObjectId" || options.readOnlyPaths?.has("_id") === true;
  }
  if (topLevel && options.readOnlyPaths?.has(path)) return true;
  return schemaType?.options?.readOnly === true;
}

/**
 * Whether `null` is a valid value of a field. Required fields and `_id` never take it. An optional
 * scalar, subdocument or map may be stored as null, so it does. An array may not: mongoose gives
 * every array a default (`[]`) and code on the model (hooks, methods) relies on an array being
 * one — `{"rules": null}` would reach a hook as null and crash it. So an array takes null only
 * when its schema says so (`default: null`), as a top-level PATCH value (which restores the
 * default, never stores null), and in responses, which describe whatever is stored.
 */
function acceptsNull(schemaType: SchemaType, mode: JsonSchemaMode, path: string, topLevel: boolean): boolean {
  if (requiredFlag(schemaType) || path === "_id") return false;
  if (schemaType.instance !== "Array") return true;
  if ((schemaType.options as { default?: unknown } | undefined)?.default === null) return true;
  return mode === "response" || (mode === "update" && topLevel);
}

function requiredFlag(schemaType: SchemaType): boolean {
  const required = (schemaType.options as { required?: unknown } | undefined)?.required;
  const flag = Array.isArray(required) ? required[0] : required;
  // A function makes the requirement conditional: JSON Schema cannot express it, mongoose checks it.
  return flag === true;
}

/**
 * Whether a request body gives this level's values whole: a create body does, and so does every
 * value inside a PATCH field (a PATCH replaces `parts` with the array it sends, so each item must
 * be complete); only the PATCH body's own fields are each optional.
 */
function wholeValues(mode: JsonSchemaMode, topLevel: boolean): boolean {
  return mode === "create" || (mode === "update" && !topLevel);
}

function requiredIn(schemaType: SchemaType, mode: JsonSchemaMode, path: string, topLevel: boolean): boolean {
  if (mode === "response") return path === "_id" || (requiredFlag(schemaType) && path !== "");
  if (!wholeValues(mode, topLevel)) return false;
  const hasDefault = (schemaType as unknown as { defaultValue?: unknown }).defaultValue !== undefined;
  return requiredFlag(schemaType) && !hasDefault;
}

/** `T` → `T | null`, keeping enums and refs exact. */
function nullable(schema: SchemaObject): SchemaObject {
  if (schema.type === undefined) {
    if (Object.keys(schema).every((key) => key === "description" || key === "readOnly" || key === "default")) return schema; // any
    const { description, readOnly, ...rest } = schema;
    const wrapped: SchemaObject = { anyOf: [rest, { type: "null" }] };
    if (description !== undefined) wrapped.description = description;
    if (readOnly !== undefined) wrapped.readOnly = readOnly;
    return wrapped;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("null")) return schema;
  const result: SchemaObject = { ...schema, type: [...types, "null"] };
  if (schema.enum) result.enum = [...schema.enum, null];
  return result;
}

function fieldSchema(schemaType: SchemaType, options: JsonSchemaOptions, path: string): SchemaObject {
  const base = typeSchema(schemaType, options, path);
  const opts = (schemaType.options ?? {}) as Record<string, unknown>;
  if (typeof opts.description === "string") base.description = opts.description;
  const defaultValue = opts.default;
  if (defaultValue !== undefined && typeof defaultValue !== "function" && isJsonValue(defaultValue)) base.default = defaultValue;
  return base;
}

function typeSchema(schemaType: SchemaType, options: JsonSchemaOptions, path: string): SchemaObject {
  const opts = (schemaType.options ?? {}) as Record<string, unknown>;
  const nested = schemaType as unknown as {
    schema?: SchemaPaths;
    $isSingleNested?: boolean;
    $isMongooseDocumentArray?: boolean;
    $__schemaType?: SchemaType;
    enumValues?: unknown[];
  };
  switch (schemaType.instance) {
    case "String": {
      const result: SchemaObject = { type: "string" };
      // mongoose checks enum and match on the value its setters produced; when a setter rewrites
      // the input (trim, lowercase, uppercase), checking the raw input here would refuse values
      // mongoose accepts ("  Open" → "open"), so those two are left to mongoose. Lengths are
      // always documented and checked here, on the characters sent: case changes keep the length,
      // and trimming only shortens, so a raw value within maxLength is within it once trimmed
      // (a padded minLength still reaches mongoose's check, in the same wording).
      // A response holds what the setters stored, so there both are documented.
      const rewritten = options.mode !== "response" && (opts.trim === true || opts.lowercase === true || opts.uppercase === true);
      const values = nested.enumValues?.filter((value) => value !== undefined);
      if (values && values.length > 0 && !rewritten) result.enum = values;
      const minLength = optionNumber(opts.minLength ?? opts.minlength);
      const maxLength = optionNumber(opts.maxLength ?? opts.maxlength);
      if (minLength !== undefined) result.minLength = minLength;
      if (maxLength !== undefined) result.maxLength = maxLength;
      const pattern = rewritten ? undefined : matchPattern(opts.match, requiredFlag(schemaType));
      if (pattern !== undefined) result.pattern = pattern;
      return result;
    }
    case "Number":
    case "Double":
    case "Int32":
    case "BigInt": {
      const result: SchemaObject = { type: schemaType.instance === "Int32" || schemaType.instance === "BigInt" ? "integer" : "number" };
      const minimum = optionNumber(opts.min);
      const maximum = optionNumber(opts.max);
      if (minimum !== undefined) result.minimum = minimum;
      if (maximum !== undefined) result.maximum = maximum;
      const values = Array.isArray(opts.enum) ? opts.enum : undefined;
      if (values && values.length > 0) result.enum = values;
      return result;
    }
    case "Decimal128":
      return { type: "string", format: "decimal", pattern: "^-?\\d+(\\.\\d+)?$" };
    case "Boolean":
      return { type: "boolean" };
    case "Date":
      return { type: "string", format: "date-time" };
    case "DateOnly":
      // A day; a full date-time is accepted too and truncated to its UTC day.
      return { type: "string", anyOf: [{ format: "date" }, { format: "date-time" }] };
    case "ObjectId": {
      const result: SchemaObject = { type: "string", pattern: OBJECT_ID_PATTERN };
      // A ref given as a function is resolved per document; only a fixed model name is documented.
      if (typeof opts.ref === "string") result["x-ref"] = opts.ref;
      return result;
    }
    case "UUID":
      return { type: "string", format: "uuid" };
    case "Buffer":
      return { type: "string", contentEncoding: "base64" };
    case "Mixed":
      return {};
    case "Map": {
      const valueType = nested.$__schemaType;
      return { type: "object", additionalProperties: valueType ? fieldSchema(valueType, options, `${path}.$*`) : {} };
    }
    case "Embedded":
      return nested.schema ? objectSchema(nested.schema, { ...options, readOnlyPaths: undefined, populated: undefined }, "", false) : { type: "object" };
    case "Array": {
      const result: SchemaObject = { type: "array" };
      if (nested.$isMongooseDocumentArray && nested.schema) {
        result.items = objectSchema(nested.schema, { ...options, readOnlyPaths: undefined, populated: undefined }, "", false);
      } else {
        const element = schemaType.getEmbeddedSchemaType();
        result.items = element ? fieldSchema(element, options, `${path}.$`) : {};
      }
      return result;
    }
    default:
      // Custom schema types document themselves as "any value"; mongoose still casts them.
      return {};
  }
}

/** Mongoose accepts `min: 1` and `min: [1, "message"]`. */
function optionNumber(value: unknown): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  return typeof raw === "number" && Number.isFinite(raw) ? raw : undefined;
}

/**
 * The JSON Schema `pattern` of a mongoose `match` (a RegExp, or `[RegExp, message]`), when one
 * says the same thing. JSON Schema patterns have no flags: a regex with `i`, `m`, `s`, `g` or `y`
 * is left to mongoose; `u` and `d` change nothing a test sees. Mongoose's match lets `""` through
 * (only `required` refuses it), so an optional field's pattern does too.
 */
function matchPattern(match: unknown, required: boolean): string | undefined {
  const regex = Array.isArray(match) ? match[0] : match;
  if (!(regex instanceof RegExp) || !/^[du]*$/.test(regex.flags) || !isUnicodeSafe(regex.source)) return undefined;
  return required || regex.test("") ? regex.source : `^$|${regex.source}`;
}

/** ajv compiles `pattern` with the `u` flag; skip patterns that are not valid there. */
function isUnicodeSafe(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

function isJsonValue(value: unknown): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean") return true;
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (type === "object" && Object.getPrototypeOf(value) === Object.prototype) return Object.values(value as object).every(isJsonValue);
  return false;
}
