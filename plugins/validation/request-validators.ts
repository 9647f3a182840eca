import type { ValidateFunction } from "ajv";
import express, { type Request, type RequestHandler } from "express";
import type { SchemaObject } from "openapi3-ts/oas31";
import type { HttpErrorFactory } from "../../kernel/errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { ajvFor, variantKey, type AjvVariant } from "./ajv-instances.js";
import { unstorableKeys } from "./body-keys.js";
import { ValidationErrors } from "./errors.js";
import { requireJsonBody } from "./json-body.js";
import { coercedIntoNullIssues, nullableCandidates, nullValueIssues } from "./null-values.js";
import { fromAjvErrors, reportedIssues, requestValidationError, type ValidationIssue, type ValidationLocation } from "./validation-issues.js";
import { validationContextOf, type ValidatorSettings } from "./validator-settings.js";

/** A property of a properties-map schema; `required: true` is accepted in the OpenAPI 2 style. */
export type PropertySchema = Omit<SchemaObject, "required"> & { required?: boolean | string[] };

/**
 * What the manual validators accept: a whole JSON schema (`{type: "object", properties, ...}`) or
 * just its properties map (`{title: {type: "string", required: true}}`).
 */
export type ValidationSchema = SchemaObject | Record<string, PropertySchema>;

/** Per-route overrides of the app's validation settings. */
export interface RequestValidatorOptions {
  /** Overrides `validateRequests` for this route. */
  enabled?: boolean;
  /** Extra required properties (properties-map schemas). */
  required?: string[];
  /** Properties to leave out of the schema (and of `required`). */
  excludeFields?: string[];
  /** Overrides `onValidationError` for this route. */
  onError?: (issues: ValidationIssue[], req: Request) => unknown;
  /** Overrides `onAdditionalPropertiesRemoved` for this route. */
  onAdditionalPropertiesRemoved?: (properties: string[], req: Request) => void;
}

/**
 * Validates `value` in place with `validate` (coercing or stripping as the variant says; a body's
 * `null` is never coerced: it passes only where the schema allows null; and coercion never turns
 * a body's `""`, `0` or `false` into null).
 * Returns the stripped top-level properties; on failure logs, then throws SPEC §7's error or
 * whatever `onError` throws or returns (a handler that returns nothing lets the request on).
 *
 * @example
 * const removed = runValidation(validate, req.body, "body", settings, ctx.logger, req);
 */
export function runValidation(
  validate: ValidateFunction,
  value: Record<string, unknown>,
  location: ValidationLocation,
  settings: ValidatorSettings,
  logger: SvcLogger,
  req: Request,
  onError?: (issues: ValidationIssue[], req: Request) => unknown,
  classify?: (issues: readonly ValidationIssue[]) => HttpErrorFactory,
): string[] {
  const before = settings.removeAdditional ? Object.keys(value) : undefined;
  // Checked first: the coercing pass below would turn these nulls into "", 0 or false — and
  // "", 0 or false into null where a schema allows null, which is checked after it.
  const nulls = location === "body" ? nullValueIssues(validate, value) : [];
  const candidates = location === "body" ? nullableCandidates(value) : [];
  let valid = validate(value);
  const errors = valid ? [] : fromAjvErrors(validate.errors ?? []);
  const invented = candidates.length > 0 ? coercedIntoNullIssues(validate, value, candidates) : [];
  if (invented.length > 0) valid = false;
  if (!valid || nulls.length > 0) {
    const flagged = new Set([...nulls, ...invented].map((issue) => issue.path));
    const issues = [...nulls, ...invented, ...errors.filter((issue) => !flagged.has(issue.path))];
    if (settings.logValidationErrors) {
      // Capped like the response: a hostile body must not write a multi-megabyte log line either.
      const { shown, more } = reportedIssues(issues);
      // originalUrl: a router mounted at a prefix sees only the rest of the path in req.path.
      logger.info(`Request ${location} validation failed for ${req.method} ${(req.originalUrl || req.url).split("?")[0]}`, { issues: shown, moreErrors: more, requestId: req.requestId });
    }
    const handler = onError ?? settings.onValidationError;
    if (!handler) throw requestValidationError(issues, location, classify?.(issues));
    const replacement = handler(issues, req);
    if (replacement instanceof Error) throw replacement;
    return [];
  }
  if (!before) return [];
  return before.filter((key) => !Object.prototype.hasOwnProperty.call(value, key));
}

/** Turns a properties map into an object schema; whole schemas pass through. */
function toObjectSchema(schema: ValidationSchema, options: RequestValidatorOptions, closed: boolean): SchemaObject {
  const excluded = new Set(options.excludeFields ?? []);
  if (isWholeSchema(schema)) {
    if (excluded.size === 0) return schema;
    const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([key]) => !excluded.has(key)));
    const required = (schema.required ?? []).filter((key) => !excluded.has(key));
    return { ...schema, properties, required: required.length > 0 ? required : undefined };
  }
  const properties: Record<string, SchemaObject> = {};
  const required = new Set(options.required ?? []);
  for (const [key, property] of Object.entries(schema as Record<string, PropertySchema>)) {
    if (excluded.has(key)) continue;
    const { required: flag, ...rest } = property;
    if (flag === true) required.add(key);
    properties[key] = (Array.isArray(flag) ? { ...rest, required: flag } : rest) as SchemaObject;
  }
  for (const key of excluded) required.delete(key);
  const result: SchemaObject = { type: "object", properties };
  if (required.size > 0) result.required = [...required];
  // With removeAdditional, undeclared properties are stripped; ajv strips only where closed.
  if (closed) result.additionalProperties = false;
  return result;
}

function isWholeSchema(schema: ValidationSchema): schema is SchemaObject {
  return (schema as SchemaObject).type === "object" && typeof (schema as SchemaObject).properties === "object";
}

/** Compiles lazily, once per ajv variant (settings can differ between apps sharing a route). */
function compiledPerVariant(build: (variant: AjvVariant) => SchemaObject): (variant: AjvVariant) => ValidateFunction {
  const compiled = new Map<string, ValidateFunction>();
  return (variant) => {
    const key = variantKey(variant);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajvFor(variant).compile(build(variant));
      compiled.set(key, validate);
    }
    return validate;
  };
}

function variantOf(settings: ValidatorSettings): AjvVariant {
  return { coerceTypes: settings.coerceTypes, removeAdditional: settings.removeAdditional };
}

/**
 * Middleware validating `req.body` against a schema, with the app's validation settings
 * (`configureOpenApiValidator`): types coerced, undeclared properties stripped (and reported to
 * `onAdditionalPropertiesRemoved`) by default, SPEC §7's 400 on failure, 415
 * `HTTP_UNSUPPORTED_MEDIA_TYPE` for a body that is not JSON, and `VALIDATION_OPERATOR_IN_BODY`
 * for a key no database can store (see `unstorableKeys`; `$`-keys are the route's to refuse,
 * with `operatorKeys`). Compiled once per settings variant.
 *
 * @example
 * router.post("/search", validateRequestBody({ query: { type: "string", required: true } }), handler);
 */
export function validateRequestBody(schema: ValidationSchema, options: RequestValidatorOptions = {}): RequestHandler {
  const validatorFor = compiledPerVariant((variant) => toObjectSchema(schema, options, variant.removeAdditional));
  return function svcValidateRequestBody(req, res, next) {
    // Even with validation off: the route takes JSON, so a form or text body is refused (415),
    // and a key no database can store never reaches the handler, which may write it.
    requireJsonBody(req);
    const unstorable = unstorableKeys(req.body);
    if (unstorable.length > 0) throw requestValidationError(unstorable, "body", ValidationErrors.OPERATOR_IN_BODY);
    const { settings, logger } = validationContextOf(res.locals);
    if (!(options.enabled ?? settings.validateRequests)) return next();
    if (req.body === undefined) req.body = {};
    const removed = runValidation(validatorFor(variantOf(settings)), req.body as Record<string, unknown>, "body", settings, logger, req, options.onError);
    if (removed.length > 0) (options.onAdditionalPropertiesRemoved ?? settings.onAdditionalPropertiesRemoved)?.(removed, req);
    next();
  };
}

/**
 * Middleware validating `req.query` against a schema (values coerced from strings by default),
 * SPEC §7's 400 on failure. The validated, coerced copy replaces `req.query` for later handlers.
 *
 * @example
 * router.get("/reports", validateQueryParams({ year: { type: "integer", minimum: 2000, required: true } }), handler);
 */
export function validateQueryParams(schema: ValidationSchema, options: RequestValidatorOptions = {}): RequestHandler {
  const validatorFor = compiledPerVariant((variant) => toObjectSchema(schema, options, variant.removeAdditional));
  return function svcValidateQueryParams(req, res, next) {
    const { settings, logger } = validationContextOf(res.locals);
    if (!(options.enabled ?? settings.validateRequests)) return next();
    const query: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
    runValidation(validatorFor(variantOf(settings)), query, "query", settings, logger, req, options.onError);
    // express 5 re-parses req.query on every read (a getter): pin the validated copy instead.
    Object.defineProperty(req, "query", { value: query, writable: true, configurable: true, enumerable: true });
    next();
  };
}

/** The schemas `createValidator` checks. */
export interface CombinedValidatorOptions {
  body?: ValidationSchema;
  query?: ValidationSchema;
  /** Overrides `validateRequests` for both. */
  enabled?: boolean;
}

/**
 * One middleware validating the query, then the body.
 *
 * @example
 * router.post("/search", createValidator({ query: { dryRun: { type: "boolean" } }, body: { text: { type: "string", required: true } } }), handler);
 */
export function createValidator(options: CombinedValidatorOptions): RequestHandler {
  // A router runs the steps in order and forwards the first error, as any express chain does.
  const chain = express.Router();
  if (options.query) chain.use(validateQueryParams(options.query, { enabled: options.enabled }));
  if (options.body) chain.use(validateRequestBody(options.body, { enabled: options.enabled }));
  return chain;
}
