import type { Schema, SchemaType } from "mongoose";
import type { AdminField } from "./admin-api-shapes.js";

const TYPES: Record<string, AdminField["type"]> = {
  String: "string",
  UUID: "string",
  Number: "number",
  Decimal128: "number",
  BigInt: "number",
  Double: "number",
  Int32: "number",
  Boolean: "boolean",
  Date: "date",
  DateOnly: "date",
  ObjectId: "objectid",
  Array: "array",
  Embedded: "object",
  Map: "object",
  Mixed: "mixed",
};

/** Never shown: mongoose's version key. `select: false` fields are left out too (they are secret or internal). */
const HIDDEN = new Set(["__v"]);

/**
 * The admin config's `fields` of a schema: type (`string`, `number`, `boolean`, `date`,
 * `objectid`, `array`, `object`, `mixed`), `required`, and `description`, `enum`, `default`,
 * `ref` where the schema says them; arrays carry `items`, nested objects their `fields`;
 * `readOnlyPaths` (the REST router's: what a write would be refused for) are marked `readOnly`.
 *
 * @example
 * adminFields(Todo.schema).title; // { type: "string", required: true, description: "What to do" }
 */
export function adminFields(schema: Schema, readOnlyPaths: ReadonlySet<string> = new Set()): Record<string, AdminField> {
  const fields: Record<string, AdminField> = {};
  schema.eachPath((path, schemaType) => {
    if (HIDDEN.has(path) || schemaType.options?.select === false) return;
    const field = fieldOf(schemaType);
    setAt(fields, path.split("."), readOnlyPaths.has(path) ? { ...field, readOnly: true } : field);
  });
  return fields;
}

/** Places a dotted path's field inside its parents' `fields`, creating them as objects. */
function setAt(fields: Record<string, AdminField>, segments: string[], field: AdminField): void {
  const [head, ...rest] = segments;
  if (rest.length === 0) {
    fields[head!] = field;
    return;
  }
  const parent = (fields[head!] ??= { type: "object", required: false, fields: {} }) as { fields?: Record<string, AdminField> };
  const children = (parent.fields ??= {}) as Record<string, AdminField>;
  setAt(children, rest, field);
}

function fieldOf(schemaType: SchemaType): AdminField {
  const options = (schemaType.options ?? {}) as Record<string, unknown>;
  const instance = schemaType.instance;
  const type = TYPES[instance] ?? "mixed";
  const field: { -readonly [K in keyof AdminField]: AdminField[K] } = { type, required: (schemaType as unknown as { isRequired?: boolean }).isRequired === true };
  if (typeof options.description === "string") field.description = options.description;
  const values = (schemaType as unknown as { enumValues?: unknown[] }).enumValues;
  if (Array.isArray(values) && values.length > 0) field.enum = [...values];
  else if (Array.isArray(options.enum) && options.enum.length > 0) field.enum = [...(options.enum as unknown[])];
  if (options.default !== undefined && typeof options.default !== "function") field.default = options.default;
  if (typeof options.ref === "string") field.ref = options.ref;
  if (type === "string") {
    const minLength = limit(options.minlength ?? options.minLength);
    const maxLength = limit(options.maxlength ?? options.maxLength);
    if (minLength !== undefined) field.minLength = minLength;
    if (maxLength !== undefined) field.maxLength = maxLength;
  } else if (type === "number") {
    const min = limit(options.min);
    const max = limit(options.max);
    if (min !== undefined) field.min = min;
    if (max !== undefined) field.max = max;
  }
  if (type === "array") {
    const element = schemaType.getEmbeddedSchemaType();
    const subSchema = (schemaType as unknown as { schema?: Schema }).schema;
    if (subSchema) field.items = { type: "object", required: false, fields: adminFields(subSchema) };
    else if (element) field.items = fieldOf(element);
  }
  if (instance === "Embedded") {
    const subSchema = (schemaType as unknown as { schema?: Schema }).schema;
    if (subSchema) field.fields = adminFields(subSchema);
  }
  return field;
}

/** A validator's bound: `200`, or mongoose's `[200, "message"]` form; anything else (a function, a date) is not shown. */
function limit(option: unknown): number | undefined {
  const value = Array.isArray(option) ? option[0] : option;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
