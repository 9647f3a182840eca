import { fromJsonSchema, type JsonSchemaType, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { Ajv, type ErrorObject } from "ajv";

// The SDK's own validator applies no defaults; ours fills in the documented defaults
// (tokenLimit 3000, timestamps true...) so handlers and the tools/list schema agree on one value.
// Strict keywords are off because tool schemas carry `description`s ajv would also accept anyway.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });

const validator = {
  getValidator<T>(schema: JsonSchemaType) {
    const check = ajv.compile(schema);
    return (input: unknown) =>
      check(input)
        ? { valid: true as const, data: input as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: ajv.errorsText(check.errors?.map(namingChoices), { dataVar: "arguments" }) };
  },
};

// ajv says only "must be equal to one of the allowed values": name them, so the caller can retry.
function namingChoices(error: ErrorObject): ErrorObject {
  if (error.keyword !== "enum") return error;
  const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
  return { ...error, message: `must be one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}` };
}

/**
 * A tool or prompt input schema from plain JSON Schema, validated with ajv (defaults applied).
 * Compiled once: servers are built per request, schemas are not.
 *
 * @example
 * const input = jsonSchemaInput<{ name: string }>({ type: "object", properties: { name: { type: "string" } }, required: ["name"] });
 */
export function jsonSchemaInput<T>(schema: JsonSchemaType): StandardSchemaWithJSON<T, T> {
  return fromJsonSchema<T>(schema, validator);
}
