import type { SchemaType } from "mongoose";
import type { ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import { acceptsOperator, ALLOWED_OPERATORS, MAX_IN_VALUES, MAX_REGEX_LENGTH } from "./list-query.js";

const OPERATOR_MEANING: Readonly<Record<string, string>> = {
  $eq: "Equal to (the same as `field=value`)",
  $ne: "Not equal to",
  $gt: "Greater than",
  $gte: "Greater than or equal to",
  $lt: "Less than",
  $lte: "Less than or equal to",
  $in: `Equal to any of these comma-separated values (1 to ${MAX_IN_VALUES})`,
  $nin: `Equal to none of these comma-separated values (1 to ${MAX_IN_VALUES})`,
  $exists: "`true`: the record has the field; `false`: it has not",
  $regex:
    `Contains this text, matched literally (no pattern syntax; 1 to ${MAX_REGEX_LENGTH} characters): ` +
    "a leading `^` or trailing `$` anchors it, `/text/i` ignores case",
};

/**
 * One list filter as one OpenAPI query parameter that Swagger UI and client generators render
 * plainly: a `deepObject` whose properties are the operators the field accepts (`status[$ne]=x`),
 * each with its own simple schema and meaning, and a description with examples of the exact
 * syntax the list parser takes — including plain `status=open`, which deepObject cannot express.
 * Operators the field's type refuses (ordering on booleans, `$regex` on non-text) are left out.
 * Its example is `{}` (no filter), so "Try it out" sends no filter until one is typed in.
 *
 * @example
 * listFilterParameter("status", { type: "string", enum: ["open", "closed"] }, Todo.schema.path("status"));
 */
export function listFilterParameter(name: string, fieldSchema: SchemaObject, schemaType: SchemaType): ParameterObject {
  const value = valueSchema(fieldSchema, schemaType);
  const operators = ALLOWED_OPERATORS.filter((op) => acceptsOperator(schemaType, op));
  const properties: Record<string, SchemaObject> = {};
  for (const op of operators) properties[op] = { ...operandSchema(op, value), description: OPERATOR_MEANING[op] };
  return {
    name,
    in: "query",
    style: "deepObject",
    explode: true,
    description: describeFilter(name, fieldSchema, schemaType, operators),
    schema: { type: "object", properties, additionalProperties: false },
    // Without an example, Swagger UI's "Try it out" pre-fills one built from the schema — every
    // operator at once, which the list parser refuses (400). `{}` pre-fills an empty filter: none.
    example: {},
  };
}

function elementType(schemaType: SchemaType): SchemaType {
  return schemaType.instance === "Array" ? (schemaType.getEmbeddedSchemaType() ?? schemaType) : schemaType;
}

const OBJECT_ID: SchemaObject = { type: "string", pattern: "^[0-9a-fA-F]{24}$" };

/** The field's schema reduced to what constrains a filter value (no null, docs or references). */
function valueSchema(field: SchemaObject, schemaType: SchemaType): SchemaObject {
  const { description: _description, readOnly: _readOnly, default: _default, "x-ref": _ref, ...rest } = field as SchemaObject & { "x-ref"?: unknown };
  // `id` is a plain string in responses, but a filter on it must be an ObjectId.
  return elementType(schemaType).instance === "ObjectId" ? { ...rest, ...OBJECT_ID } : rest;
}

function operandSchema(op: string, value: SchemaObject): SchemaObject {
  if (op === "$in" || op === "$nin") return { type: "string" };
  if (op === "$exists") return { type: "boolean" };
  // The limit applies to the text between `/.../i`, so the raw value may be three characters longer.
  if (op === "$regex") return { type: "string", minLength: 1, maxLength: MAX_REGEX_LENGTH + 3 };
  return value;
}

function describeFilter(name: string, field: SchemaObject, schemaType: SchemaType, operators: readonly string[]): string {
  const [first, second] = samples(valueSchema(field, schemaType));
  const about = [field.description, field.enum ? `one of ${field.enum.map((item) => `\`${String(item)}\``).join(", ")}` : undefined]
    .filter(Boolean)
    .join("; ");
  const list = schemaType.instance === "Array" ? " A record matches when any element of its list does." : "";
  const examples = [`\`${name}=${first}\``, `\`${name}[$in]=${first},${second}\``];
  // Text is searched, numbers and dates are ranged: one example of whichever the field invites.
  if (operators.includes("$regex")) examples.push(`\`${name}[$regex]=/${first}/i\``);
  else if (operators.includes("$gte")) examples.push(`\`${name}[$gte]=${first}&${name}[$lt]=${second}\``);
  examples.push(`\`${name}[$exists]=false\``);
  return (
    `Filter on \`${name}\`${about ? ` (${about})` : ""}.${list} ` +
    `\`${name}=value\` keeps records equal to the value; \`${name}[$op]=value\` applies an operator: ` +
    `${operators.map((op) => `\`${op}\``).join(" ")}. Examples: ${examples.join(", ")}.`
  );
}

/** Two plausible values of the field, for the examples. */
function samples(field: SchemaObject): [string, string] {
  if (field.enum && field.enum.length > 0) return [String(field.enum[0]), String(field.enum[1] ?? field.enum[0])];
  const types = Array.isArray(field.type) ? field.type : [field.type];
  const formats = [field.format, ...(field.anyOf ?? []).map((option) => (option as SchemaObject).format)];
  if (types.includes("boolean")) return ["true", "false"];
  if (types.includes("integer") || types.includes("number")) {
    const low = typeof field.minimum === "number" ? field.minimum : 1;
    const high = typeof field.maximum === "number" ? field.maximum : low + 9;
    return [String(low), String(high)];
  }
  if (formats.includes("date") || formats.includes("date-time")) return ["2024-06-01", "2024-07-01"];
  if (field.pattern === OBJECT_ID.pattern) return ["64b7f0c2a1b2c3d4e5f60718", "64b7f0c2a1b2c3d4e5f60719"];
  return ["text", "other"];
}
