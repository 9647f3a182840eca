// Plausible values for a JSON schema: the starting point every hostile body is mutated from, so
// that a mutation gets past the checks it does not touch and reaches the code behind them (a hook,
// mongoose, the driver) instead of being refused for an unrelated missing field.
import fc from "fast-check";
import type { Schema } from "./openapi-operations.js";

const MAX_DEPTH = 5;

/** Which optional properties an object value gets: some (at random), none, or all. */
export type OptionalProperties = "some" | "none" | "all";

/**
 * Values that satisfy `schema` as far as a generic reader can tell: types, enums, formats,
 * bounds, required properties (optional ones as `optional` says). Custom rules (weights summing
 * to 100) may still refuse them; that is fine, the answer is then a 4xx like any other.
 *
 * @example
 * fc.sample(plausibleValue({ type: "object", properties: { done: { type: "boolean" } } }), 1); // [{ done: true }]
 */
export function plausibleValue(schema: Schema, optional: OptionalProperties = "some", depth = 0): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant("x");
  const choices = [...((schema.anyOf ?? schema.oneOf ?? []) as Schema[])].filter((choice) => choice.type !== "null");
  if (choices.length > 0 && !schema.type) {
    return fc.oneof(...choices.map((choice) => plausibleValue({ ...schema, anyOf: undefined, oneOf: undefined, ...choice }, optional, depth)));
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((value) => value !== null);
    return values.length > 0 ? fc.constantFrom(...values) : fc.constant(null);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []).filter((type) => type !== "null");
  const type = types[0] ?? (schema.properties ? "object" : schema.items ? "array" : undefined);
  switch (type) {
    case "string":
      return plausibleString(schema);
    case "integer":
    case "number": {
      const min = Math.ceil(typeof schema.minimum === "number" ? schema.minimum : 0);
      const max = Math.floor(typeof schema.maximum === "number" ? schema.maximum : Math.max(min, 0) + 1000);
      return fc.integer({ min, max: Math.max(min, max) });
    }
    case "boolean":
      return fc.boolean();
    case "array": {
      const minLength = typeof schema.minItems === "number" ? schema.minItems : 0;
      // Without optional parts, arrays stay as short as allowed: an empty list is the likeliest to pass custom rules.
      const maxLength = optional === "none" ? minLength : Math.max(minLength, Math.min(typeof schema.maxItems === "number" ? schema.maxItems : 3, 3));
      return fc.array(plausibleValue((schema.items ?? {}) as Schema, optional, depth + 1), { minLength, maxLength });
    }
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []).filter((name) => name in properties);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (optional === "none" && !required.includes(name)) continue;
        model[name] = plausibleValue(property, optional, depth + 1);
      }
      return fc.record(model, { requiredKeys: optional === "some" ? required : Object.keys(model) });
    }
    default:
      // An untyped property (a free-form rule value, a host's profile field): any scalar.
      return fc.oneof(plausibleString({}), fc.integer({ min: -5, max: 100 }), fc.boolean());
  }
}

function plausibleString(schema: Schema): fc.Arbitrary<string> {
  const pattern = typeof schema.pattern === "string" ? schema.pattern : undefined;
  if (pattern === "^[0-9a-fA-F]{24}$") return fc.stringMatching(/^[0-9a-f]{24}$/);
  const formats = [schema.format, ...((schema.anyOf ?? []) as Schema[]).map((choice) => choice.format)].filter((format) => typeof format === "string");
  switch (formats[0]) {
    case "email":
      return fc.stringMatching(/^[a-z]{3,8}$/).map((name) => `fuzz-${name}@example.com`);
    case "password":
      return fc.constant("Fuzz-password-1234");
    case "date":
      return fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
    case "date-time":
      return fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }).map((date) => date.toISOString());
    case "uri":
    case "url":
      return fc.constant("https://example.com/fuzz");
    case "uuid":
      return fc.uuid();
  }
  if (pattern) {
    try {
      return fc.stringMatching(new RegExp(pattern)).filter((text) => text.length <= 200);
    } catch {
      // A pattern JavaScript cannot compile: fall back to plain text.
    }
  }
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 1;
  const maxLength = Math.max(minLength, Math.min(typeof schema.maxLength === "number" ? schema.maxLength : 12, 12));
  // Letters only: plausible text must not itself look like an attack or a leak marker.
  return fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"), minLength, maxLength });
}
