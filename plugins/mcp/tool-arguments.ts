import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { SchemaObject } from "openapi3-ts/oas31";
import { ajvFor, fromAjvErrors } from "../validation/index.js";

/**
 * A tool's arguments as the MCP SDK takes them: `advertised` is the JSON Schema `tools/list`
 * shows; `checked` is what is validated before the tool runs (compiled once, with the app's
 * ajv). They differ for model tools, whose record fields are checked by the REST route itself —
 * so an invalid field gets exactly REST's error — while the envelope (`id`, `data`, `filter`...)
 * is checked here. A failed check is a tool error (`isError`), never a protocol failure.
 *
 * @example
 * const args = toolArguments({ type: "object", properties: { id: { type: "string" } }, required: ["id"] });
 */
export function toolArguments(advertised: SchemaObject, checked: SchemaObject = advertised): StandardSchemaWithJSON<Record<string, unknown>> {
  const validate = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(checked);
  return {
    "~standard": {
      version: 1,
      vendor: "svc",
      jsonSchema: { input: () => advertised as Record<string, unknown>, output: () => advertised as Record<string, unknown> },
      validate(value) {
        if (validate(value)) return { value: value as Record<string, unknown> };
        // The SDK writes each issue as `path: message`, so the path is given once, as `path`.
        const issues = fromAjvErrors(validate.errors ?? []);
        return { issues: issues.map((issue) => (issue.path ? { message: issue.message, path: issue.path.split(".") } : { message: `arguments: ${issue.message}` })) };
      },
    },
  };
}
