import type { ValidateFunction } from "ajv";
import type { Request } from "express";
import type { SchemaObject } from "openapi3-ts/oas31";
import { RestErrors } from "./errors.js";
import type { ModelAnalysis } from "./model-analysis.js";
import type { ModelRouterValidationOptions, RequestBody } from "./model-router-options.js";
import type { SvcLogger } from "../../kernel/logger.js";
import {
  ajvFor,
  operatorKeys,
  requestValidationError,
  requireJsonBody,
  runValidation,
  type ValidationIssue,
  type ValidatorSettings,
} from "../validation/index.js";
import { ValidationErrors } from "../validation/index.js";

/** Checks a create or update body and returns it ready to write (coerced, maybe stripped). */
export type BodyChecker<T> = (req: Request) => RequestBody<T>;

/**
 * Builds the body check of one generated route, compiled once at start. In order: a body must
 * be sent as JSON (415 otherwise) and be a JSON object; no key at any depth may start with `$`;
 * no top-level key may be read-only (ids, timestamps, `deleted`, the owner field, `readOnly`
 * fields; on a user model, the framework-managed fields unless the caller is an admin) — these always apply, whatever the settings, because they guard what gets written;
 * then the ajv schema derived from the model (unless validation is off for this route), which
 * rejects unknown fields, or strips them when the router says `additionalProperties: "remove"`.
 *
 * @example
 * const checkCreate = bodyChecker(schemas.create, "create", analysis, { settings, logger: ctx.logger }, options.validation);
 * const body = checkCreate(req);
 */
export function bodyChecker<T>(
  schema: SchemaObject,
  mode: "create" | "update",
  analysis: ModelAnalysis,
  { settings, logger }: { settings: ValidatorSettings; logger: SvcLogger },
  validation: ModelRouterValidationOptions = {},
): BodyChecker<T> {
  const enabled = (mode === "create" ? validation.validateCreate : validation.validateUpdate) ?? settings.validateRequests;
  const remove = validation.additionalProperties === "remove";
  const effective: ValidatorSettings = { ...settings, removeAdditional: remove };
  const validate: ValidateFunction | undefined = enabled
    ? ajvFor({ coerceTypes: settings.coerceTypes, removeAdditional: remove }).compile(schema)
    : undefined;
  const onRemoved = validation.onAdditionalPropertiesRemoved ?? settings.onAdditionalPropertiesRemoved;
  const readOnly = analysis.readOnlyPaths;

  return function checkBody(req) {
    requireJsonBody(req);
    const body: unknown = req.body ?? {};
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw requestValidationError([{ path: "", message: "must be a JSON object", keyword: "type" }], "body");
    }
    const operators = operatorKeys(body);
    if (operators.length > 0) throw requestValidationError(operators, "body", ValidationErrors.OPERATOR_IN_BODY);
    const record = body as Record<string, unknown>;
    const adminOnly = analysis.adminOnlyPaths.size > 0 && req.user?.admin !== true ? analysis.adminOnlyPaths : undefined;
    // A dotted key (`roles.0`) writes into its root field.
    const refused = (field: string) => readOnly.has(field) || (adminOnly?.has(field.split(".")[0]!) ?? false);
    for (const key in record) {
      if (refused(key)) {
        const issues = Object.keys(record)
          .filter(refused)
          .map((field) => ({ path: field, message: readOnly.has(field) ? "is set by the server and cannot be written" : "is managed by the framework: only an admin can write it", keyword: "readOnly" }));
        throw requestValidationError(issues, "body", ValidationErrors.READ_ONLY_FIELD);
      }
    }
    if (validate) {
      const removed = runValidation(validate, record, "body", effective, logger, req, validation.onError, classifyBodyIssues);
      if (removed.length > 0) onRemoved?.(removed, req);
    }
    return record as RequestBody<T>;
  };
}

/** An unknown field gets its own code, so clients can tell "typo" from "bad value". */
function classifyBodyIssues(issues: readonly ValidationIssue[]) {
  return issues.some((issue) => issue.keyword === "additionalProperties") ? ValidationErrors.UNKNOWN_FIELD : ValidationErrors.INVALID_BODY;
}
