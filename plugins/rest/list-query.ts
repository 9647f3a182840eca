import type { SchemaType } from "mongoose";
import type { HttpErrorFactory } from "../../kernel/errors.js";
import { RestErrors } from "./errors.js";
import type { ModelAnalysis } from "./model-analysis.js";
import { FIELDS_PARAMETER, parseFields } from "./sparse-fields.js";
import { requestValidationError, type ValidationIssue } from "../validation/index.js";
import { ValidationErrors } from "../validation/index.js";

/** The operators a list filter may use; anything else is refused. */
export const ALLOWED_OPERATORS: readonly string[] = Object.freeze(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$regex"]);

const OPERATORS = new Set(ALLOWED_OPERATORS);
/** Longest `$regex` pattern accepted. */
export const MAX_REGEX_LENGTH = 100;
/** Most values in one `$in`/`$nin`. */
export const MAX_IN_VALUES = 100;
/** Longest single filter value. */
const MAX_VALUE_LENGTH = 1024;
/** Most sort keys. */
const MAX_SORT_KEYS = 5;
/** Highest page number (keeps skips bounded). */
export const MAX_PAGE = 1_000_000;

const FILTER_KEY = /^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)(?:\[([^\]]*)\])?$/;
const SORT_KEY = /^-?[A-Za-z_][A-Za-z0-9_.]*$/;
const DIGITS = /^[0-9]{1,9}$/;
const RESERVED = new Set(["limit", "page", "sort"]);
/** The free-text parameter of routers with `searchFields`. */
const SEARCH = "search";

/** A parsed, cast and checked list request. */
export interface ListQuery {
  readonly filter: Record<string, unknown>;
  readonly sort: Record<string, 1 | -1>;
  readonly limit: number;
  readonly page: number;
  readonly skip: number;
  /** `fields`: the only fields to answer (besides the id); undefined → all. */
  readonly fields?: ReadonlySet<string>;
}

type RawQuery = Record<string, unknown>;

class QueryProblems {
  readonly issues: ValidationIssue[] = [];
  code?: HttpErrorFactory;
  add(code: HttpErrorFactory, path: string, message: string, keyword: string): void {
    this.code ??= code;
    this.issues.push({ path, message, keyword });
  }
}

/**
 * Builds the list-query parser of one router (ARCHITECTURE §4): `limit` (1 to `maxLimit`,
 * default `defaultLimit`), `page` (1-based), `sort` (`-created,title`, schema paths only), and
 * filters on `queryFields` only — `field=value` or `field[$op]=value` with the operator allowlist
 * `$eq $ne $gt $gte $lt $lte $in $nin $exists $regex`. Values are cast with the field's mongoose
 * type; `$in`/`$nin` take a comma-separated value or repeated parameters; `$regex` matches its
 * value literally (anchors `^`/`$` kept; `/text/i` for case-insensitive), so no client pattern is
 * ever compiled. A value containing a NUL character is refused with every operator. `fields`
 * picks the answer's fields among `responseFields`. Every problem is reported in SPEC §7's 400
 * body.
 *
 * @example
 * const parse = createListQueryParser(analysis);
 * parse({ done: "false", "dueOn[$lt]": "2024-06-01", sort: "-created", limit: "20" });
 */
export function createListQueryParser(analysis: ModelAnalysis, responseFields: ReadonlySet<string> = new Set()): (query: RawQuery) => ListQuery {
  // A model whose own field is called `fields` filters on it, as it did before sparse fieldsets.
  const sparse = !analysis.queryFields.has(FIELDS_PARAMETER);
  return function parseListQuery(query) {
    const problems = new QueryProblems();
    const limit = parseCount(query.limit, "limit", analysis.defaultLimit, analysis.maxLimit, problems);
    const page = parseCount(query.page, "page", 1, MAX_PAGE, problems);
    const sort = query.sort === undefined ? analysis.defaultSort : parseSort(query.sort, analysis, problems);
    const filter: Record<string, unknown> = {};
    const searchable = analysis.searchFields.length > 0;
    for (const key of Object.keys(query)) {
      if (RESERVED.has(key) || (searchable && key === SEARCH) || (sparse && key === FIELDS_PARAMETER)) continue;
      parseFilter(key, query[key], analysis, filter, problems);
    }
    if (searchable && query[SEARCH] !== undefined) {
      const matches = searchFilter(query[SEARCH], analysis.searchFields, problems);
      if (matches) filter.$or = matches;
    }
    const fieldIssues: ValidationIssue[] = [];
    const fields = sparse ? parseFields(query[FIELDS_PARAMETER], responseFields, fieldIssues) : undefined;
    for (const issue of fieldIssues) problems.add(ValidationErrors.INVALID_QUERY, issue.path, issue.message, issue.keyword ?? FIELDS_PARAMETER);
    if (problems.issues.length > 0) throw requestValidationError(problems.issues, "query", problems.code);
    return { filter, sort, limit, page, skip: (page - 1) * limit, fields };
  };
}

/**
 * `?search=term`: the term, escaped, as a case-insensitive match in any search field. Escaped
 * literal text cannot backtrack, and an empty or over-long term is refused like a `$regex`.
 */
function searchFilter(raw: unknown, fields: readonly string[], problems: QueryProblems): Record<string, RegExp>[] | undefined {
  const text = single(raw, SEARCH, problems);
  if (text === undefined) return undefined;
  if (text.includes("\u0000")) {
    problems.add(ValidationErrors.INVALID_QUERY, SEARCH, "must not contain a NUL character", "nul");
    return undefined;
  }
  const term = text.trim();
  if (term.length === 0 || term.length > MAX_REGEX_LENGTH) {
    problems.add(ValidationErrors.INVALID_QUERY, SEARCH, `must be 1 to ${MAX_REGEX_LENGTH} characters`, "maxLength");
    return undefined;
  }
  const pattern = new RegExp(escapeRegexText(term), "i");
  return fields.map((field) => ({ [field]: pattern }));
}

function single(value: unknown, name: string, problems: QueryProblems): string | undefined {
  if (typeof value === "string") return value;
  problems.add(ValidationErrors.INVALID_QUERY, name, "must be given once", "type");
  return undefined;
}

function parseCount(value: unknown, name: string, fallback: number, max: number, problems: QueryProblems): number {
  if (value === undefined) return fallback;
  const text = single(value, name, problems);
  if (text === undefined) return fallback;
  const number = DIGITS.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(number) || number < 1 || number > max) {
    problems.add(ValidationErrors.INVALID_QUERY, name, `must be an integer from 1 to ${max}`, "range");
    return fallback;
  }
  return number;
}

function parseSort(value: unknown, analysis: ModelAnalysis, problems: QueryProblems): Record<string, 1 | -1> {
  const text = single(value, "sort", problems);
  if (text === undefined) return analysis.defaultSort;
  const parts = text.split(",").map((part) => part.trim()).filter(Boolean);
  const sort: Record<string, 1 | -1> = {};
  if (parts.length === 0 || parts.length > MAX_SORT_KEYS) {
    problems.add(ValidationErrors.INVALID_QUERY, "sort", `must name 1 to ${MAX_SORT_KEYS} fields`, "sort");
    return analysis.defaultSort;
  }
  for (const part of parts) {
    const path = part.replace(/^-/, "") === "id" ? "_id" : part.replace(/^-/, "");
    if (!SORT_KEY.test(part) || !analysis.sortablePaths.has(path) || path in sort) {
      // What was sent is not repeated back (it could be anything, of any length), nor the list of
      // sortable paths (MCP serves the same parser to clients that must not learn excluded names).
      problems.add(ValidationErrors.INVALID_QUERY, "sort", path in sort ? "names a field twice" : "names a field it cannot sort by", "sort");
      continue;
    }
    sort[path] = part.startsWith("-") ? -1 : 1;
  }
  if (!("_id" in sort)) sort._id = 1;
  return sort;
}

function parseFilter(key: string, raw: unknown, analysis: ModelAnalysis, filter: Record<string, unknown>, problems: QueryProblems): void {
  const match = FILTER_KEY.exec(key);
  if (!match) {
    if (key.includes("$")) problems.add(RestErrors.OPERATOR_NOT_ALLOWED, key, "is not an allowed filter", "operator");
    else problems.add(RestErrors.QUERY_FIELD_NOT_ALLOWED, key, "is not a filterable field", "queryFields");
    return;
  }
  const field = match[1] === "id" ? "_id" : match[1]!;
  const operator = match[2];
  const schemaType = analysis.queryFields.get(field);
  if (!schemaType) {
    problems.add(RestErrors.QUERY_FIELD_NOT_ALLOWED, key, "is not a filterable field", "queryFields");
    return;
  }
  if (operator !== undefined && !OPERATORS.has(operator)) {
    problems.add(RestErrors.OPERATOR_NOT_ALLOWED, key, `uses an operator outside ${ALLOWED_OPERATORS.join(" ")}`, "operator");
    return;
  }
  const op = operator ?? "$eq";
  const value = castOperand(op, raw, schemaType, key, problems);
  if (value === INVALID) return;

  const existing = filter[field];
  if (existing === undefined) {
    // A bare equality stays `{field: value}`: the shape indexes and the planner like best.
    filter[field] = operator === undefined ? value : { [op]: value };
    return;
  }
  const conditions = isOperatorObject(existing) ? existing : { $eq: existing };
  if (op in conditions) {
    problems.add(ValidationErrors.INVALID_QUERY, key, "is given twice", "duplicate");
    return;
  }
  conditions[op] = value;
  filter[field] = conditions;
}

const INVALID = Symbol("invalid");

/** Mongoose's query casting, present on every schema type but not in its typings. */
function castForQuery(schemaType: SchemaType, op: string | null, value: unknown): unknown {
  return (schemaType as unknown as { castForQuery(op: string | null, value: unknown): unknown }).castForQuery(op, value);
}

function castOperand(op: string, raw: unknown, schemaType: SchemaType, key: string, problems: QueryProblems): unknown {
  // BSON writes a regex as NUL-terminated text, so the driver throws on a NUL in a `$regex`; in
  // any other filter it has no use either. One rule for every operator keeps the class closed.
  if (containsNul(raw)) {
    problems.add(ValidationErrors.INVALID_QUERY, key, "must not contain a NUL character", "nul");
    return INVALID;
  }
  if (op === "$in" || op === "$nin") {
    const values = Array.isArray(raw) ? raw : typeof raw === "string" ? (raw === "" ? [] : raw.split(",")) : [];
    if (values.length === 0 || values.length > MAX_IN_VALUES) {
      problems.add(ValidationErrors.INVALID_QUERY, key, `must list 1 to ${MAX_IN_VALUES} values`, "range");
      return INVALID;
    }
    const cast: unknown[] = [];
    for (const value of values) {
      const one = castValue(String(value), schemaType, key, problems);
      if (one === INVALID) return INVALID;
      cast.push(one);
    }
    return cast;
  }
  const text = single(raw, key, problems);
  if (text === undefined) return INVALID;
  if (op === "$exists") {
    if (text !== "true" && text !== "false") {
      problems.add(ValidationErrors.INVALID_QUERY, key, "must be true or false", "type");
      return INVALID;
    }
    return text === "true";
  }
  if (op === "$regex") return literalRegex(text, schemaType, key, problems);
  const value = castValue(text, schemaType, key, problems);
  if (value === INVALID) return INVALID;
  if (op === "$eq" || op === "$ne") return value;
  // $gt/$gte/$lt/$lte only where the type orders (not Boolean): what the OpenAPI document says.
  if (!acceptsOperator(schemaType, op)) {
    problems.add(RestErrors.OPERATOR_NOT_ALLOWED, key, `cannot use ${op} on this field`, "operator");
    return INVALID;
  }
  try {
    return castForQuery(schemaType, op, value);
  } catch {
    problems.add(RestErrors.OPERATOR_NOT_ALLOWED, key, `cannot use ${op} on this field`, "operator");
    return INVALID;
  }
}

const ORDERING = new Set(["$gt", "$gte", "$lt", "$lte"]);

/**
 * Whether a list filter may use `op` on a field of this type: ordering where the type has
 * ordering casts (numbers, dates, strings, ids — not booleans), `$regex` on text. The parser and
 * the OpenAPI document ask this same question.
 *
 * @example
 * acceptsOperator(Todo.schema.path("done"), "$gt"); // false
 */
export function acceptsOperator(schemaType: SchemaType, op: string): boolean {
  const element = schemaType.instance === "Array" ? (schemaType.getEmbeddedSchemaType() ?? schemaType) : schemaType;
  if (op === "$regex") return element.instance === "String";
  if (ORDERING.has(op)) return element.instance !== "Boolean" && op in (element.$conditionalHandlers ?? {});
  return true;
}

function containsNul(raw: unknown): boolean {
  if (typeof raw === "string") return raw.includes("\u0000");
  return Array.isArray(raw) && raw.some(containsNul);
}

function castValue(text: string, schemaType: SchemaType, key: string, problems: QueryProblems): unknown {
  if (text.length > MAX_VALUE_LENGTH) {
    problems.add(ValidationErrors.INVALID_QUERY, key, `must be at most ${MAX_VALUE_LENGTH} characters`, "maxLength");
    return INVALID;
  }
  const elementType = elementTypeOf(schemaType);
  // Mongoose casts "" to null for most types; a filter value must say something.
  if (text === "" && elementType.instance !== "String") {
    problems.add(ValidationErrors.INVALID_QUERY, key, "must not be empty", "type");
    return INVALID;
  }
  try {
    return castForQuery(elementType, null, text);
  } catch {
    problems.add(ValidationErrors.INVALID_QUERY, key, `is not a valid ${elementType.instance}`, "type");
    return INVALID;
  }
}

function elementTypeOf(schemaType: SchemaType): SchemaType {
  if (schemaType.instance !== "Array") return schemaType;
  return schemaType.getEmbeddedSchemaType() ?? schemaType;
}

function literalRegex(text: string, schemaType: SchemaType, key: string, problems: QueryProblems): unknown {
  if (elementTypeOf(schemaType).instance !== "String") {
    problems.add(RestErrors.OPERATOR_NOT_ALLOWED, key, "$regex applies to text fields only", "operator");
    return INVALID;
  }
  let body = text;
  let flags = "";
  const slashed = /^\/(.*)\/(i?)$/s.exec(text);
  if (slashed) {
    body = slashed[1]!;
    flags = slashed[2]!;
  }
  if (body.length === 0 || body.length > MAX_REGEX_LENGTH) {
    problems.add(ValidationErrors.INVALID_QUERY, key, `must be 1 to ${MAX_REGEX_LENGTH} characters`, "maxLength");
    return INVALID;
  }
  const anchoredStart = body.startsWith("^");
  const anchoredEnd = body.length > 1 && body.endsWith("$") && !body.endsWith("\\$");
  const literal = body.slice(anchoredStart ? 1 : 0, anchoredEnd ? -1 : undefined);
  // Escaped literal text cannot backtrack catastrophically, in MongoDB or in the embedded engine.
  const escaped = escapeRegexText(literal);
  return new RegExp(`${anchoredStart ? "^" : ""}${escaped}${anchoredEnd ? "$" : ""}`, flags);
}

function escapeRegexText(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    Object.keys(value).some((key) => key.startsWith("$"))
  );
}
