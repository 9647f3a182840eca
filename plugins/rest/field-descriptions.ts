import type { Schema } from "mongoose";

/**
 * The schema's fields that have no `description` (SPEC §2.1: every field carries one; they feed
 * OpenAPI, SDK types and the admin metadata). `_id` and `__v` are mongoose's own and skipped.
 *
 * @example
 * fieldsWithoutDescription(Todo.schema); // ["notes", "address.city"]
 */
export function fieldsWithoutDescription(schema: Schema): string[] {
  const missing: string[] = [];
  schema.eachPath((path, schemaType) => {
    if (path === "_id" || path === "__v" || path.includes(".$")) return;
    const description = (schemaType.options as { description?: unknown } | undefined)?.description;
    if (typeof description !== "string" || description.trim() === "") missing.push(path);
  });
  return missing;
}
