import type { SchemaObject } from "openapi3-ts/oas31";
import { mongooseJsonSchema, type SchemaPaths } from "../../rest/index.js";
import { AuthErrors } from "../errors.js";

/**
 * Each profile field's JSON schema, derived from the user model's schema as REST derives a PATCH
 * body, so sign-up and `PATCH /auth/me` check (and OpenAPI documents) a profile value exactly as
 * a REST update would: no coercion, the field's type, enums, bounds. A dotted field
 * (`"address.city"`) is looked up inside its parent. A field the schema does not have, or one
 * clients can never write (`readOnly`), fails the start with `AUTH_PROFILE_FIELD_UNKNOWN`.
 *
 * @example
 * profileFieldSchemas(User.schema, ["name"]); // { name: { type: ["string", "null"], description: "Display name" } }
 * profileFieldSchemas(User.schema, ["nickname"]); // throws AUTH_PROFILE_FIELD_UNKNOWN
 */
export function profileFieldSchemas(schema: SchemaPaths, profileFields: readonly string[]): Record<string, SchemaObject> {
  const writable = mongooseJsonSchema(schema, { mode: "update" });
  return Object.fromEntries(
    profileFields.map((field) => {
      let found: SchemaObject | undefined = writable;
      for (const segment of field.split(".")) {
        const properties: Record<string, SchemaObject> | undefined = found?.properties as Record<string, SchemaObject> | undefined;
        found = properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined;
      }
      if (!found) throw AuthErrors.PROFILE_FIELD_UNKNOWN(field);
      return [field, found];
    }),
  );
}
