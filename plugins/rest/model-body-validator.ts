import type { RequestHandler } from "express";
import { validateRequestBody, type RequestValidatorOptions } from "../validation/index.js";
import { mongooseJsonSchema } from "./json-schema/mongoose-json-schema.js";
import type { RestModel } from "./model-router-options.js";
import { SERVER_MANAGED_PATHS } from "./server-managed-paths.js";

/** Options of `validateModelRequestBody`. */
export interface ModelBodyValidatorOptions extends RequestValidatorOptions {
  /** `create` requires the model's required fields; `update` makes every field optional (default `create`). */
  mode?: "create" | "update";
}

/**
 * Middleware validating `req.body` against a model's schema, for hand-written routes: the same
 * derivation generated routes use (server-managed `_id`, `created`, `updated`, `deleted` and
 * `readOnly` fields are not writable).
 *
 * @example
 * router.post("/todos/import", validateModelRequestBody(Todo), importHandler);
 */
export function validateModelRequestBody<T>(model: RestModel<T>, options: ModelBodyValidatorOptions = {}): RequestHandler {
  const schema = mongooseJsonSchema(model.schema, { mode: options.mode ?? "create", readOnlyPaths: new Set(SERVER_MANAGED_PATHS) });
  return validateRequestBody(schema, options);
}
