import type { Document } from "bson";
import { bsonTypeName, compileFilter, compileJsonSchema, isDocument } from "../query/index.js";

/** Keywords that annotate a schema and never fail. */
const ANNOTATIONS = new Set(["title", "description", "$comment", "$schema", "id", "$id"]);

/** mongod's `reason` for a failed `$jsonSchema` keyword. */
const REASONS: Readonly<Record<string, string>> = {
  bsonType: "type did not match",
  type: "type did not match",
  enum: "value was not found in enum",
  minimum: "comparison failed",
  maximum: "comparison failed",
  exclusiveMinimum: "comparison failed",
  exclusiveMaximum: "comparison failed",
  multipleOf: "considered value is not a multiple of the specified value",
  minLength: "specified string length was not satisfied",
  maxLength: "specified string length was not satisfied",
  pattern: "regular expression did not match",
  minItems: "array did not match specified length",
  maxItems: "array did not match specified length",
  uniqueItems: "found a duplicate item",
  minProperties: "specified number of properties was not satisfied",
  maxProperties: "specified number of properties was not satisfied",
};

/**
 * The `errInfo.details` of a DocumentValidationFailure (121), shaped like mongod's: for a
 * `$jsonSchema` validator `{operatorName: "$jsonSchema", schemaRulesNotSatisfied: [...]}` with
 * `required` → `missingProperties`, `properties` → `propertiesNotSatisfied: [{propertyName,
 * details}]`, `additionalProperties` → the extra names, and per keyword `specifiedAs`, `reason`,
 * `consideredValue`/`consideredType`; several top-level clauses → `{operatorName: "$and",
 * clausesNotSatisfied: [{index, details}]}`; a query clause → its operator, `specifiedAs` and
 * `consideredValue`. Computed only when a write fails, so valid writes pay nothing for it.
 *
 * @example
 * validationDetails({$jsonSchema: {required: ["email"]}}, {_id: 1});
 * // {operatorName: "$jsonSchema", schemaRulesNotSatisfied: [{operatorName: "required", specifiedAs: {required: ["email"]}, missingProperties: ["email"]}]}
 */
export function validationDetails(validator: Document, doc: Document): Document {
  const clauses = Object.entries(validator);
  if (clauses.length === 1) return clauseDetails(clauses[0]![0], clauses[0]![1], doc);
  const failing: Document[] = [];
  clauses.forEach(([field, value], index) => {
    if (!compileFilter({ [field]: value }).matches(doc)) failing.push({ index, details: clauseDetails(field, value, doc) });
  });
  return { operatorName: "$and", clausesNotSatisfied: failing };
}

function clauseDetails(field: string, value: unknown, doc: Document): Document {
  if (field === "$jsonSchema" && isDocument(value)) {
    return { operatorName: "$jsonSchema", schemaRulesNotSatisfied: schemaFailures(value, doc) };
  }
  if (field.startsWith("$")) return { operatorName: field, specifiedAs: { [field]: value }, reason: "expression did not match" };
  const operator = isDocument(value) && Object.keys(value)[0]?.startsWith("$") ? Object.keys(value)[0]! : "$eq";
  const considered = fieldValue(doc, field);
  if (considered === undefined) return { operatorName: operator, specifiedAs: { [field]: value }, reason: "field was missing" };
  return {
    operatorName: operator,
    specifiedAs: { [field]: value },
    reason: operator === "$type" ? "type did not match" : "comparison failed",
    consideredValue: considered,
    ...(operator === "$type" ? { consideredType: bsonTypeName(considered) } : {}),
  };
}

/** The rules of `schema` that `value` breaks, each described as mongod does. */
function schemaFailures(schema: Document, value: unknown): Document[] {
  const failures: Document[] = [];
  for (const [keyword, argument] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    if (keyword === "required" && Array.isArray(argument)) {
      const missing = isDocument(value) ? argument.filter((name) => typeof name === "string" && !(name in value)).sort() : [];
      if (missing.length > 0) failures.push({ operatorName: "required", specifiedAs: { required: argument }, missingProperties: missing });
      continue;
    }
    if (keyword === "properties" && isDocument(argument)) {
      if (!isDocument(value)) continue;
      const properties: Document[] = [];
      for (const [name, subschema] of Object.entries(argument)) {
        if (!(name in value) || !isDocument(subschema) || holds(subschema, value[name])) continue;
        properties.push({ propertyName: name, details: schemaFailures(subschema, value[name]) });
      }
      if (properties.length > 0) failures.push({ operatorName: "properties", propertiesNotSatisfied: properties });
      continue;
    }
    if (keyword === "additionalProperties" && argument === false) {
      if (!isDocument(value)) continue;
      const declared = isDocument(schema["properties"]) ? Object.keys(schema["properties"]) : [];
      const extra = Object.keys(value).filter((name) => !declared.includes(name) && !matchesPattern(schema["patternProperties"], name));
      if (extra.length > 0) {
        failures.push({ operatorName: "additionalProperties", specifiedAs: { additionalProperties: false }, additionalProperties: extra });
      }
      continue;
    }
    const single: Document = { [keyword]: argument };
    // additionalProperties (as a schema) needs its siblings to know what is additional.
    if (keyword === "additionalProperties") Object.assign(single, pick(schema, ["properties", "patternProperties"]));
    if (holds(single, value)) continue;
    const failure: Document = { operatorName: keyword, specifiedAs: { [keyword]: argument } };
    if (REASONS[keyword]) failure["reason"] = REASONS[keyword];
    failure["consideredValue"] = value;
    if (keyword === "bsonType" || keyword === "type") failure["consideredType"] = bsonTypeName(value);
    failures.push(failure);
  }
  return failures;
}

function holds(schema: Document, value: unknown): boolean {
  return compileJsonSchema(schema)(value as Document);
}

function matchesPattern(patterns: unknown, name: string): boolean {
  return isDocument(patterns) && Object.keys(patterns).some((pattern) => new RegExp(pattern).test(name));
}

function pick(source: Document, names: readonly string[]): Document {
  const out: Document = {};
  for (const name of names) if (source[name] !== undefined) out[name] = source[name];
  return out;
}

function fieldValue(doc: Document, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split(".")) {
    if (!isDocument(current)) return undefined;
    current = current[part];
  }
  return current;
}
