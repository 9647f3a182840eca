/** A JSON Schema as OpenAPI 3.1 documents carry it (only what the generator reads). */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly nullable?: boolean;
  readonly readOnly?: boolean;
  readonly description?: string;
}

/** How a `$ref` is written in TypeScript: the name of the generated type it points to. */
export type RefNamer = (ref: string) => string;

const PRIMITIVES: Readonly<Record<string, string>> = { string: "string", number: "number", integer: "number", boolean: "boolean", null: "null" };

const literal = (value: unknown) => JSON.stringify(value);

/** A property key as TypeScript accepts it. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function union(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  if (unique.length === 0) return "unknown";
  if (unique.includes("unknown")) return "unknown";
  return unique.join(" | ");
}

/**
 * How deep a schema is written before the rest is `unknown`. Real models nest a few levels; a
 * hostile document nesting thousands overflowed the stack, and the output grows with the square of
 * the depth (each level indents every line below it).
 */
export const MAX_SCHEMA_DEPTH = 32;

/** Schemas that only narrow a format (`anyOf: [{format: date}, ...]`) say nothing about the type. */
const typeless = (schema: JsonSchema) => !schema.$ref && !schema.type && !schema.properties && !schema.items && !schema.enum && schema.const === undefined && !schema.anyOf && !schema.oneOf && !schema.allOf;

/**
 * The TypeScript type of a JSON Schema, written on one line per property level. `indent` is the
 * indentation of the line the type starts on (nested objects are written over several lines);
 * `depth` the levels of schema above it (past `MAX_SCHEMA_DEPTH` the type is `unknown`).
 *
 * @example
 * schemaToType({ type: "object", properties: { title: { type: "string" } }, required: ["title"] }, (ref) => ref.split("/").at(-1)!);
 * // "{\n  title: string;\n}"
 */
export function schemaToType(schema: JsonSchema | undefined, nameOf: RefNamer, indent = "", depth = 0): string {
  if (!schema || typeof schema !== "object" || depth > MAX_SCHEMA_DEPTH) return "unknown";
  if (schema.$ref) return nameOf(schema.$ref);
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return union(schema.enum.map(literal));
  const alternatives = schema.anyOf ?? schema.oneOf;
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as readonly string[]) : [schema.type as string];
  if (alternatives && !alternatives.every(typeless)) {
    const inner = union(alternatives.map((alternative) => schemaToType(alternative, nameOf, indent, depth + 1)));
    return types.includes("null") || schema.nullable ? union([inner, "null"]) : inner;
  }
  // An empty allOf (JSON Schema wants one part at least) would write `a: ;`.
  if (schema.allOf?.length) return schema.allOf.map((part) => `(${schemaToType(part, nameOf, indent, depth + 1)})`).join(" & ");
  if (types.length === 0) return schema.properties ? objectType(schema, nameOf, indent, depth) : "unknown";
  const parts = types.map((type) => {
    if (type === "array") {
      const item = schemaToType(schema.items, nameOf, indent, depth + 1);
      return /^[A-Za-z0-9_$]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    if (type === "object") return objectType(schema, nameOf, indent, depth);
    return PRIMITIVES[type] ?? "unknown";
  });
  if (schema.nullable) parts.push("null");
  return union(parts);
}

/**
 * The `$ref`s of a schema that `schemaToType` writes where TypeScript resolves a type alias at once:
 * the schema itself, union and intersection members, a `Record`'s values. Object properties and
 * array items are resolved lazily, so a ref there may lead back to the alias; one here may not.
 *
 * @example
 * aliasRefs({ anyOf: [{ $ref: "#/components/schemas/A" }, { type: "array", items: { $ref: "#/components/schemas/B" } }] }); // ["#/components/schemas/A"]
 */
export function aliasRefs(schema: JsonSchema | undefined, depth = 0): string[] {
  if (!schema || typeof schema !== "object" || depth > MAX_SCHEMA_DEPTH) return [];
  if (schema.$ref) return [schema.$ref];
  if (schema.const !== undefined || schema.enum) return [];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && !alternatives.every(typeless)) return alternatives.flatMap((alternative) => aliasRefs(alternative, depth + 1));
  if (schema.allOf?.length) return schema.allOf.flatMap((part) => aliasRefs(part, depth + 1));
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as readonly string[]) : [schema.type as string];
  const record = (types.length === 0 ? schema.properties !== undefined : types.includes("object")) && Object.keys(schema.properties ?? {}).length === 0;
  return record && schema.additionalProperties && typeof schema.additionalProperties === "object" ? aliasRefs(schema.additionalProperties, depth + 1) : [];
}

/**
 * Whether `schemaToType` writes an object type for `schema` (an object, or a union or intersection
 * of objects; `null`, a primitive or `unknown` are not): what `createCollectionHooks` accepts as
 * create and update data. `resolve` looks a `$ref` up; a cycle of refs is not an object.
 *
 * @example
 * isObjectSchema({ type: "object", properties: { title: { type: "string" } } }, () => undefined); // true
 * isObjectSchema({ type: "object", nullable: true }, () => undefined); // false: `{...} | null`
 */
export function isObjectSchema(schema: JsonSchema | undefined, resolve: (ref: string) => JsonSchema | undefined, seen: ReadonlySet<string> = new Set(), depth = 0): boolean {
  // Past the depth `schemaToType` writes `unknown`, which is no object.
  if (!schema || typeof schema !== "object" || depth > MAX_SCHEMA_DEPTH) return false;
  if (schema.$ref) return !seen.has(schema.$ref) && isObjectSchema(resolve(schema.$ref), resolve, new Set([...seen, schema.$ref]), depth);
  if (schema.const !== undefined || schema.enum) return false;
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as readonly string[]) : [schema.type as string];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && !alternatives.every(typeless)) return !schema.nullable && !types.includes("null") && alternatives.every((alternative) => isObjectSchema(alternative, resolve, seen, depth + 1));
  if (schema.allOf?.length) return schema.allOf.every((part) => isObjectSchema(part, resolve, seen, depth + 1));
  if (schema.nullable) return false;
  return types.length === 0 ? schema.properties !== undefined : types.every((type) => type === "object");
}

function objectType(schema: JsonSchema, nameOf: RefNamer, indent: string, depth: number): string {
  const properties = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    if (extra && typeof extra === "object") return `Record<string, ${schemaToType(extra, nameOf, indent, depth + 1)}>`;
    return "Record<string, unknown>";
  }
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = properties.map(([name, property]) => {
    const doc = property.description ? `${inner}/** ${property.description.replaceAll("*/", "* /")} */\n` : "";
    return `${doc}${inner}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${schemaToType(property, nameOf, inner, depth + 1)};`;
  });
  if (extra && typeof extra === "object") lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join("\n")}\n${indent}}`;
}
