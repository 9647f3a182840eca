import mongoose from "mongoose";
import type { ValidationIssue } from "./validation-issues.js";

type ValidatorProperties = Record<string, unknown> & { message?: unknown };

const messages = mongoose.Error.messages as unknown as Record<string, Record<string, string> | null>;

/** Mongoose's default message templates per validator kind (a Number and a Date `min` differ). */
function defaultTemplates(kind: string): string[] {
  const pick = (...keys: [group: string, name: string][]) => keys.map(([group, name]) => messages[group]?.[name]).filter((text): text is string => typeof text === "string");
  switch (kind) {
    case "required":
      return pick(["general", "required"]);
    case "min":
      return pick(["Number", "min"], ["Date", "min"]);
    case "max":
      return pick(["Number", "max"], ["Date", "max"]);
    case "enum":
      return pick(["String", "enum"], ["Number", "enum"]);
    case "regexp":
      return pick(["String", "match"]);
    case "minlength":
      return pick(["String", "minlength"]);
    case "maxlength":
      return pick(["String", "maxlength"]);
    case "user defined":
      return pick(["general", "default"]);
    default:
      return [];
  }
}

/** mongoose's own formatting of a template (exposed on the prototype). */
const formatMessage = (mongoose.Error.ValidatorError.prototype as unknown as { formatMessage(template: string, properties: ValidatorProperties): string }).formatMessage;

/**
 * True when the error carries mongoose's default text (which quotes the value) rather than a
 * message the schema's author wrote: the default template, filled in the same way, reproduces it.
 */
function usesDefaultMessage(kind: string, properties: ValidatorProperties): boolean {
  const variants = [properties];
  // String maxlength messages quote only the first 30 characters of a long value.
  if (typeof properties.value === "string" && properties.value.length > 30) variants.push({ ...properties, value: `${properties.value.slice(0, 30)}...` });
  return defaultTemplates(kind).some((template) => variants.some((variant) => formatMessage(template, variant) === properties.message));
}

function limit(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** The request validator's wording for each built-in mongoose validator. */
function fixedMessage(kind: string, properties: ValidatorProperties): string {
  switch (kind) {
    case "required":
      return "is required";
    case "min":
      return `must be >= ${limit(properties.min)}`;
    case "max":
      return `must be <= ${limit(properties.max)}`;
    case "enum": {
      const values = Array.isArray(properties.enumValues) ? properties.enumValues : [];
      return values.length > 0 ? `must be one of ${values.map((value) => JSON.stringify(value)).join(", ")}` : "is not an allowed value";
    }
    case "regexp":
      return properties.regexp instanceof RegExp ? `must match pattern "${properties.regexp.source}"` : "is not in the expected format";
    case "minlength":
      return `must NOT have fewer than ${limit(properties.minlength)} characters`;
    case "maxlength":
      return `must NOT have more than ${limit(properties.maxlength)} characters`;
    default:
      return "is invalid";
  }
}

/** What a value of each mongoose type must be, for cast failures. */
const CAST_EXPECTATIONS: Readonly<Record<string, string>> = {
  number: "must be a number",
  double: "must be a number",
  int32: "must be an integer",
  bigint: "must be an integer",
  decimal128: "must be a decimal number",
  boolean: "must be a boolean",
  string: "must be a string",
  objectid: "must be an id (24 hexadecimal characters)",
  date: "must be a date-time (ISO 8601)",
  dateonly: "must be a date (YYYY-MM-DD)",
  uuid: "must be a UUID",
  buffer: "must be binary data",
  map: "must be an object",
  embedded: "must be an object",
  array: "must be an array",
};

/**
 * The message of a value mongoose could not cast to its field's type, without the value (which
 * may be long, or something the client should not see echoed back).
 *
 * @example
 * castMessage("Number"); // "must be a number"
 * castMessage("[ObjectId]"); // "must be an array of ids (24 hexadecimal characters)"
 */
export function castMessage(kind: string): string {
  const element = /^\[(.+)\]$/.exec(kind)?.[1];
  if (element) {
    const inner = CAST_EXPECTATIONS[element.toLowerCase()];
    return inner ? `must be an array whose items each ${inner}` : "must be an array of valid values";
  }
  return CAST_EXPECTATIONS[kind.toLowerCase()] ?? `must be a valid ${kind}`;
}

/**
 * One issue per path of a mongoose `ValidationError`, in the request validator's message style:
 * mongoose's default texts (which quote the input, e.g. "Path `title` (`<the value>`) is longer
 * than...") are replaced by fixed ones ("must NOT have more than 200 characters"); messages the
 * schema's author wrote are kept as written. `keyword` is mongoose's validator kind.
 *
 * @example
 * mongooseValidationIssues(error); // [{ path: "title", message: "is required", keyword: "required" }]
 */
export function mongooseValidationIssues(error: mongoose.Error.ValidationError): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // The key is the full path ("items.0.name"); a subdocument's error names only its own ("name").
  for (const [path, entry] of Object.entries(error.errors)) {
    if (entry instanceof mongoose.Error.CastError) {
      issues.push({ path, message: castMessage(entry.kind), keyword: "cast" });
    } else if (entry instanceof mongoose.Error.ValidatorError) {
      const properties = (entry.properties ?? {}) as ValidatorProperties;
      const kind = entry.kind;
      const custom = defaultTemplates(kind).length > 0 && !usesDefaultMessage(kind, properties);
      issues.push({ path, message: custom ? entry.message : fixedMessage(kind, properties), keyword: kind });
    } else {
      issues.push({ path, message: "is invalid", keyword: "invalid" });
    }
  }
  return issues;
}
