import { EngineError, ErrorCodes } from "../engine-error.js";
import { bsonEquals, equalityKey } from "./bson-order.js";
import { parseTypeSpec } from "./bson-type.js";
import { isDocument } from "./document-path.js";
import { compareNumbers, divide, numericKind, toDouble } from "./numeric.js";
import { toJsRegExp } from "./regex.js";
import type { Document } from "./types.js";

type Check = (v: unknown) => boolean;

const IGNORED = new Set(["title", "description", "$comment", "$schema", "id", "$id"]);

/**
 * Compiles a `$jsonSchema` document (MongoDB's JSON Schema draft 4 dialect with `bsonType`) into a
 * predicate on documents. Supported keywords: `bsonType`, `type`, `enum`, `required`, `properties`,
 * `additionalProperties`, `patternProperties`, `minProperties`, `maxProperties`, `minimum`,
 * `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`,
 * `pattern`, `items`, `additionalItems`, `minItems`, `maxItems`, `uniqueItems`, `allOf`, `anyOf`,
 * `oneOf`, `not`, plus annotations (`title`, `description`). `dependencies` and `encrypt` throw
 * BadValue (2); unknown keywords throw FailedToParse (9) as the server does. As in JSON Schema,
 * type-specific keywords only constrain values of that type.
 *
 * @example
 * const ok = compileJsonSchema({ required: ["name"], properties: { age: { bsonType: "int", minimum: 0 } } });
 * ok({ name: "a", age: new Int32(3) }); // true
 */
export function compileJsonSchema(schema: Document): (doc: Document) => boolean {
  return compileSchema(schema, "$jsonSchema");
}

function compileSchema(schema: unknown, where: string): Check {
  if (!isDocument(schema)) throw new EngineError(ErrorCodes.TypeMismatch, `${where} must be an object`);
  const checks: Check[] = [];
  for (const key of Object.keys(schema)) {
    const arg = schema[key];
    if (IGNORED.has(key)) continue;
    checks.push(compileKeyword(key, arg, schema, where));
  }
  return (v) => {
    for (const c of checks) if (!c(v)) return false;
    return true;
  };
}

function nonNegInt(key: string, arg: unknown): number {
  const n = toDouble(arg);
  if (numericKind(arg) === undefined || !Number.isInteger(n) || n < 0) {
    throw new EngineError(ErrorCodes.FailedToParse, `$jsonSchema keyword '${key}' must be a non-negative integer`);
  }
  return n;
}

function isNumber(v: unknown): boolean {
  return numericKind(v) !== undefined;
}

const JSON_TYPES: Record<string, Check> = {
  object: (v) => isDocument(v),
  array: (v) => Array.isArray(v),
  number: isNumber,
  boolean: (v) => typeof v === "boolean",
  string: (v) => typeof v === "string",
  null: (v) => v === null,
};

function compileKeyword(key: string, arg: unknown, schema: Document, where: string): Check {
  switch (key) {
    case "bsonType": {
      const spec = parseTypeSpec(arg);
      return (v) => v === undefined || spec.matches(v);
    }
    case "type": {
      const names = Array.isArray(arg) ? arg : [arg];
      const tests = names.map((n) => {
        if (n === "integer") throw new EngineError(ErrorCodes.FailedToParse, "$jsonSchema type 'integer' is not currently supported.");
        const t = typeof n === "string" ? JSON_TYPES[n] : undefined;
        if (t === undefined) throw new EngineError(ErrorCodes.BadValue, `Unknown type name alias: ${String(n)}`);
        return t;
      });
      return (v) => v === undefined || tests.some((t) => t(v));
    }
    case "enum": {
      if (!Array.isArray(arg) || arg.length === 0) throw new EngineError(ErrorCodes.FailedToParse, "$jsonSchema keyword 'enum' must be a non-empty array");
      return (v) => v === undefined || arg.some((e) => bsonEquals(v, e));
    }
    case "required": {
      if (!Array.isArray(arg) || arg.some((r) => typeof r !== "string")) {
        throw new EngineError(ErrorCodes.FailedToParse, "$jsonSchema keyword 'required' must be an array of strings");
      }
      const names = arg as string[];
      return (v) => !isDocument(v) || names.every((n) => Object.prototype.hasOwnProperty.call(v, n));
    }
    case "properties": {
      if (!isDocument(arg)) throw new EngineError(ErrorCodes.TypeMismatch, "$jsonSchema keyword 'properties' must be an object");
      const props = Object.entries(arg).map(([name, s]) => [name, compileSchema(s, `${where}.properties.${name}`)] as const);
      return (v) => {
        if (!isDocument(v)) return true;
        for (const [name, check] of props) {
          if (Object.prototype.hasOwnProperty.call(v, name) && !check(v[name])) return false;
        }
        return true;
      };
    }
    case "patternProperties":
      return () => true; // evaluated together with additionalProperties below
    case "additionalProperties": {
      const declared = isDocument(schema.properties) ? new Set(Object.keys(schema.properties)) : new Set<string>();
      const patterns = isDocument(schema.patternProperties)
        ? Object.entries(schema.patternProperties).map(([p, s]) => [toJsRegExp(p, ""), compileSchema(s, `${where}.patternProperties`)] as const)
        : [];
      const extra: Check = typeof arg === "boolean" ? () => arg : compileSchema(arg, `${where}.additionalProperties`);
      return (v) => {
        if (!isDocument(v)) return true;
        for (const name of Object.keys(v)) {
          let matchedPattern = false;
          for (const [re, check] of patterns) {
            if (re.test(name)) {
              matchedPattern = true;
              if (!check(v[name])) return false;
            }
          }
          if (!declared.has(name) && !matchedPattern && !extra(v[name])) return false;
        }
        return true;
      };
    }
    case "minProperties":
    case "maxProperties": {
      const n = nonNegInt(key, arg);
      const min = key === "minProperties";
      return (v) => !isDocument(v) || (min ? Object.keys(v).length >= n : Object.keys(v).length <= n);
    }
    case "minimum":
    case "maximum": {
      if (!isNumber(arg)) throw new EngineError(ErrorCodes.TypeMismatch, `$jsonSchema keyword '${key}' must be a number`);
      const min = key === "minimum";
      const exclusive = schema[min ? "exclusiveMinimum" : "exclusiveMaximum"] === true;
      return (v) => {
        if (!isNumber(v)) return true;
        const c = compareNumbers(v, arg);
        return min ? (exclusive ? c > 0 : c >= 0) : exclusive ? c < 0 : c <= 0;
      };
    }
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      if (typeof arg !== "boolean") throw new EngineError(ErrorCodes.TypeMismatch, `$jsonSchema keyword '${key}' must be a boolean`);
      if (!((key === "exclusiveMinimum" ? "minimum" : "maximum") in schema)) {
        throw new EngineError(ErrorCodes.FailedToParse, `$jsonSchema keyword '${key}' requires '${key === "exclusiveMinimum" ? "minimum" : "maximum"}'`);
      }
      return () => true;
    case "multipleOf": {
      if (!isNumber(arg) || compareNumbers(arg, 0) <= 0) throw new EngineError(ErrorCodes.FailedToParse, "$jsonSchema keyword 'multipleOf' must be a positive number");
      return (v) => {
        if (!isNumber(v)) return true;
        const q = divide(v, arg);
        const d = toDouble(q);
        return Number.isFinite(d) && Number.isInteger(d);
      };
    }
    case "minLength":
    case "maxLength": {
      const n = nonNegInt(key, arg);
      const min = key === "minLength";
      return (v) => {
        if (typeof v !== "string") return true;
        let len = 0;
        for (const _ of v) len++; // code points, as the server counts them
        return min ? len >= n : len <= n;
      };
    }
    case "pattern": {
      if (typeof arg !== "string") throw new EngineError(ErrorCodes.TypeMismatch, "$jsonSchema keyword 'pattern' must be a string");
      const re = toJsRegExp(arg, "");
      return (v) => typeof v !== "string" || re.test(v);
    }
    case "items": {
      if (Array.isArray(arg)) {
        const tuple = arg.map((s, i) => compileSchema(s, `${where}.items.${i}`));
        const additional = schema.additionalItems;
        const extra: Check = additional === undefined || additional === true ? () => true : additional === false ? () => false : compileSchema(additional, `${where}.additionalItems`);
        return (v) => {
          if (!Array.isArray(v)) return true;
          for (let i = 0; i < v.length; i++) {
            if (i < tuple.length ? !tuple[i]!(v[i]) : !extra(v[i])) return false;
          }
          return true;
        };
      }
      const each = compileSchema(arg, `${where}.items`);
      return (v) => !Array.isArray(v) || v.every(each);
    }
    case "additionalItems":
      return () => true; // evaluated with items
    case "minItems":
    case "maxItems": {
      const n = nonNegInt(key, arg);
      const min = key === "minItems";
      return (v) => !Array.isArray(v) || (min ? v.length >= n : v.length <= n);
    }
    case "uniqueItems": {
      if (typeof arg !== "boolean") throw new EngineError(ErrorCodes.TypeMismatch, "$jsonSchema keyword 'uniqueItems' must be a boolean");
      if (!arg) return () => true;
      return (v) => !Array.isArray(v) || new Set(v.map(equalityKey)).size === v.length;
    }
    case "allOf":
    case "anyOf":
    case "oneOf": {
      if (!Array.isArray(arg) || arg.length === 0) throw new EngineError(ErrorCodes.FailedToParse, `$jsonSchema keyword '${key}' must be a nonempty array`);
      const subs = arg.map((s, i) => compileSchema(s, `${where}.${key}.${i}`));
      if (key === "allOf") return (v) => subs.every((s) => s(v));
      if (key === "anyOf") return (v) => subs.some((s) => s(v));
      return (v) => subs.filter((s) => s(v)).length === 1;
    }
    case "not": {
      const sub = compileSchema(arg, `${where}.not`);
      return (v) => !sub(v);
    }
    case "dependencies":
    case "encrypt":
    case "encryptMetadata":
      throw new EngineError(ErrorCodes.BadValue, `$jsonSchema keyword '${key}' is not supported by the embedded engine`);
    default:
      throw new EngineError(ErrorCodes.FailedToParse, `Unknown $jsonSchema keyword: ${key}`);
  }
}
