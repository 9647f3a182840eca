// The hostile values and keys a body is made of: each labelled, so a failure says what was sent
// in words as well as bytes. Sizes are bounded by the body limit the harness is given.
import fc from "fast-check";
import type { JsonKey, JsonNode } from "./hostile-json.js";
import type { Schema } from "./openapi-operations.js";

/** A hostile value with the words that describe it. */
export interface LabelledNode {
  readonly label: string;
  readonly node: JsonNode;
}

const value = (label: string, raw: null | boolean | number | string): LabelledNode => ({ label, node: { kind: "value", value: raw } });

/** `null`, `""`, `0`, `false`, `[]`, `{}`: what careless coercion turns into trouble. */
export const EMPTY_VALUES: readonly LabelledNode[] = [
  value("null", null),
  value('""', ""),
  value("0", 0),
  value("false", false),
  { label: "[]", node: { kind: "array", items: [] } },
  { label: "{}", node: { kind: "object", entries: [] } },
];

/** One value per JSON type, from which the types a schema does not allow are picked. */
const ONE_OF_EACH_TYPE: Readonly<Record<string, LabelledNode>> = {
  string: value("a string", "fuzz"),
  number: value("a number", 7.5),
  integer: value("an integer", 3),
  boolean: value("true", true),
  array: { label: "an array of a string", node: { kind: "array", items: [{ kind: "value", value: "fuzz" }] } },
  object: { label: "an object", node: { kind: "object", entries: [["fuzz", { kind: "value", value: 1 }]] } },
};

/**
 * A value of every JSON type the schema does not allow (a number for a string, a string for a
 * boolean, an object for an array…).
 *
 * @example
 * wrongTypeValues({ type: ["boolean", "null"] }); // string, number, integer, array, object
 */
export function wrongTypeValues(schema: Schema): LabelledNode[] {
  const declared = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (declared.length === 0) return [];
  const allowed = new Set<string>(declared);
  if (allowed.has("number")) allowed.add("integer");
  return Object.entries(ONE_OF_EACH_TYPE)
    .filter(([type]) => !allowed.has(type))
    .map(([, node]) => ({ ...node, label: `${node.label} (the schema says ${declared.join(" or ")})` }));
}

const operatorObject = (operator: string, operand: JsonNode): LabelledNode => ({
  label: `{"${operator}": …}`,
  node: { kind: "object", entries: [[operator, operand]] },
});

/** Query operators as values: what a naive `Model.find(body)` would execute. */
export const OPERATOR_VALUES: readonly LabelledNode[] = [
  operatorObject("$gt", { kind: "value", value: "" }),
  operatorObject("$ne", { kind: "value", value: null }),
  operatorObject("$where", { kind: "value", value: "sleep(100) || true" }),
  operatorObject("$regex", { kind: "value", value: ".*" }),
  operatorObject("$expr", { kind: "object", entries: [["$eq", { kind: "array", items: [{ kind: "value", value: 1 }, { kind: "value", value: 1 }] }]] }),
  operatorObject("$set", { kind: "object", entries: [["admin", { kind: "value", value: true }]] }),
];

/**
 * Objects whose only key is hostile: what a free-form field (a rule's value, a profile field)
 * hands to the driver, where `$` and NUL keys are refused and dotted keys mean paths.
 */
export const KEYED_OBJECTS: readonly LabelledNode[] = (["\u0000", "a\u0000b", "$where", "a.b", "__proto__", "constructor"] as const).map((key) => ({
  label: `an object with the key ${JSON.stringify(key)}`,
  node: { kind: "object", entries: [[key, { kind: "object", entries: [["admin", { kind: "value", value: true }]] }]] },
}));

/** Strings with NUL, lone surrogates and other characters that trip encoders and the driver. */
export const HOSTILE_STRINGS: readonly LabelledNode[] = [
  value("a NUL character", "\u0000"),
  value("a string with a NUL inside", "fuzz\u0000fuzz"),
  value("a lone high surrogate", "\ud800"),
  value("a lone low surrogate", "x\udc00x"),
  value("a reversed surrogate pair", "\udc00\ud800"),
  value("a byte-order mark", "\ufeff"),
  value("a right-to-left override", "\u202efuzz"),
  value("control characters", "\u0001\u0007\u001b[31m\r\n"),
  value("a non-BMP character", "\u{1f4a9}"),
  value("a dotted path", "a.b.c"),
  value("a $-prefixed string", "$where"),
  value('"__proto__"', "__proto__"),
  value("a path traversal", "../../../etc/passwd"),
  value("a percent-encoded NUL", "%00"),
  value("a string of spaces", "      "),
  value("a template expression", "${7*7}{{7*7}}"),
];

/** Raw bytes that are not UTF-8, inside a string. */
export const INVALID_UTF8: readonly LabelledNode[] = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80], // overlong NUL
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xe2, 0x82], // a truncated sequence
  [0xf8, 0x88, 0x80, 0x80, 0x80], // a five-byte form
  [0x80],
].map((bytes) => ({ label: "invalid UTF-8 bytes", node: { kind: "raw-string", bytes } }));

/** Numbers a double cannot hold, and the edges of the ones it can. */
export const HOSTILE_NUMBERS: readonly LabelledNode[] = [
  { label: "1e999 (infinite)", node: { kind: "number-text", text: "1e999" } },
  { label: "-1e999", node: { kind: "number-text", text: "-1e999" } },
  { label: "a 40-digit integer", node: { kind: "number-text", text: "1234567890123456789012345678901234567890" } },
  { label: "-0", node: { kind: "number-text", text: "-0" } },
  { label: "1e-400 (underflows to 0)", node: { kind: "number-text", text: "1e-400" } },
  value("2^53 + 1", 2 ** 53 + 1),
  value("-2^63", -(2 ** 63)),
  value("the largest double", Number.MAX_VALUE),
  value("5e-324", 5e-324),
  value("-1", -1),
  value("1.5", 1.5),
];

/**
 * Large and deep values. Most stay well under `bodyLimit` so they reach validation; one size is
 * just over it, so the limit itself is attacked too.
 *
 * @example
 * fc.sample(hugeValues(1_048_576), 1); // [{ label: "a string of 200000 characters", node: … }]
 */
export function hugeValues(bodyLimit: number): fc.Arbitrary<LabelledNode> {
  const under = [1_000, 20_000, 200_000, Math.floor(bodyLimit * 0.9)];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...under).map((length) => ({ label: `a string of ${length} characters`, node: { kind: "long-string", length, unit: "fuzz " } }) as LabelledNode) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 2048 }).map((extra) => ({ label: `a string just over the body limit (${bodyLimit + extra} characters)`, node: { kind: "long-string", length: bodyLimit + extra, unit: "x" } }) as LabelledNode) },
    { weight: 4, arbitrary: fc.constantFrom(33, 200, 2_000, 20_000, 100_000).chain((depth) => fc.constantFrom<"array" | "object">("array", "object").map((shape) => ({ label: `${depth} nested ${shape}s`, node: { kind: "deep", depth, shape } }) as LabelledNode)) },
    { weight: 3, arbitrary: fc.constantFrom(1_000, 20_000, 100_000).map((length) => ({ label: `an array of ${length} strings`, node: { kind: "long-array", length, item: { kind: "value", value: "x" } } }) as LabelledNode) },
    { weight: 2, arbitrary: fc.constantFrom(1_000, 20_000).map((count) => ({ label: `an object with ${count} keys`, node: { kind: "many-keys", count } }) as LabelledNode) },
  );
}

/** Keys that are operators, paths, prototype names, framework-managed fields, or not text at all. */
export const HOSTILE_KEYS: readonly JsonKey[] = [
  "$where",
  "$set",
  "$gt",
  "$",
  "$unset",
  "a.b",
  "profile.admin",
  "__proto__",
  "constructor",
  "prototype",
  "",
  "\u0000",
  "fuzz\u0000key",
  "\ud800",
  "_id",
  "id",
  "__v",
  "admin",
  "ownerId",
  "created",
  "deleted",
  "passwordHash",
  "toString",
  "hasOwnProperty",
  { bytes: [0xff, 0xfe] },
];

/** Whether a key is `$`-prefixed: the framework refuses such bodies whatever else they hold. */
export function isOperatorKey(key: JsonKey): boolean {
  return typeof key === "string" && key.startsWith("$");
}

/**
 * Any one hostile value: empty-ish, operator objects, hostile strings, invalid UTF-8, hostile
 * numbers, huge and deep values.
 */
export function hostileValue(bodyLimit: number): fc.Arbitrary<LabelledNode> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...EMPTY_VALUES) },
    { weight: 3, arbitrary: fc.constantFrom(...OPERATOR_VALUES) },
    { weight: 2, arbitrary: fc.constantFrom(...KEYED_OBJECTS) },
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: fc.constantFrom(...INVALID_UTF8) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
    { weight: 2, arbitrary: hugeValues(bodyLimit) },
    { weight: 2, arbitrary: fc.constantFrom(...Object.values(ONE_OF_EACH_TYPE)) },
  );
}
