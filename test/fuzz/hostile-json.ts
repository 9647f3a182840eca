// A JSON document the harness can make hostile in ways a JavaScript value cannot: duplicate and
// `__proto__` keys as real own keys, raw bytes that are not UTF-8 inside strings, number tokens
// that do not fit a double, and huge or deep parts kept as a size (so a counterexample prints as
// "a string of 900000 characters", not the characters).

/** A key: text, or raw bytes (invalid UTF-8) written between the quotes. */
export type JsonKey = string | { readonly bytes: readonly number[] };

/** One node of the document. */
export type JsonNode =
  | { readonly kind: "value"; readonly value: null | boolean | number | string }
  /** A number token written verbatim: `1e999`, `-0`, 30 digits. */
  | { readonly kind: "number-text"; readonly text: string }
  /** A string whose middle is raw bytes, e.g. 0xff or an encoded surrogate. */
  | { readonly kind: "raw-string"; readonly bytes: readonly number[] }
  | { readonly kind: "array"; readonly items: readonly JsonNode[] }
  | { readonly kind: "object"; readonly entries: ReadonlyArray<readonly [JsonKey, JsonNode]> }
  /** `[[[…]]]` or `{"a":{"a":…}}`, `depth` levels. */
  | { readonly kind: "deep"; readonly depth: number; readonly shape: "array" | "object" }
  | { readonly kind: "long-string"; readonly length: number; readonly unit: string }
  | { readonly kind: "long-array"; readonly length: number; readonly item: JsonNode }
  | { readonly kind: "many-keys"; readonly count: number };

/**
 * A node for a plain JSON value (what a schema generator produces).
 *
 * @example
 * fromValue({ title: "a", tags: ["x"] });
 */
export function fromValue(value: unknown): JsonNode {
  if (Array.isArray(value)) return { kind: "array", items: value.map(fromValue) };
  if (typeof value === "object" && value !== null) {
    return { kind: "object", entries: Object.entries(value).map(([key, item]) => [key, fromValue(item)] as const) };
  }
  if (typeof value === "number" && !Number.isFinite(value)) return { kind: "value", value: null };
  if (value === undefined) return { kind: "value", value: null };
  return { kind: "value", value: value as null | boolean | number | string };
}

/**
 * The document's bytes. Strings go through `JSON.stringify`, which escapes lone surrogates
 * (`"\ud800"`) and control characters, so those reach the server as valid JSON escapes; raw
 * nodes are the only way invalid bytes get in.
 *
 * @example
 * serializeJson({ kind: "raw-string", bytes: [0xff] }); // <Buffer 22 ff 22>
 */
export function serializeJson(node: JsonNode): Buffer {
  const parts: Array<string | Buffer> = [];
  write(node, parts);
  return Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : part)));
}

function write(node: JsonNode, parts: Array<string | Buffer>): void {
  switch (node.kind) {
    case "value":
      parts.push(JSON.stringify(node.value));
      return;
    case "number-text":
      parts.push(node.text);
      return;
    case "raw-string":
      parts.push('"x', Buffer.from(node.bytes), 'x"');
      return;
    case "array":
      parts.push("[");
      node.items.forEach((item, index) => {
        if (index > 0) parts.push(",");
        write(item, parts);
      });
      parts.push("]");
      return;
    case "object":
      parts.push("{");
      node.entries.forEach(([key, value], index) => {
        if (index > 0) parts.push(",");
        parts.push(typeof key === "string" ? JSON.stringify(key) : Buffer.concat([Buffer.from('"'), Buffer.from(key.bytes), Buffer.from('"')]), ":");
        write(value, parts);
      });
      parts.push("}");
      return;
    case "deep":
      parts.push(node.shape === "array" ? "[".repeat(node.depth) + "]".repeat(node.depth) : '{"a":'.repeat(node.depth) + "1" + "}".repeat(node.depth));
      return;
    case "long-string":
      parts.push(JSON.stringify(node.unit.repeat(Math.ceil(node.length / Math.max(1, node.unit.length))).slice(0, node.length)));
      return;
    case "long-array":
      parts.push("[");
      for (let index = 0; index < node.length; index++) {
        if (index > 0) parts.push(",");
        write(node.item, parts);
      }
      parts.push("]");
      return;
    case "many-keys": {
      const entries: string[] = [];
      for (let index = 0; index < node.count; index++) entries.push(`"k${index}":${index}`);
      parts.push(`{${entries.join(",")}}`);
      return;
    }
  }
}

/**
 * A short description of a node for a failure message.
 *
 * @example
 * describeNode({ kind: "deep", depth: 5000, shape: "array" }); // "5000 nested arrays"
 */
export function describeNode(node: JsonNode): string {
  switch (node.kind) {
    case "value":
      return typeof node.value === "string" && node.value.length > 40 ? `a string of ${node.value.length} characters` : JSON.stringify(node.value);
    case "number-text":
      return `the number ${node.text}`;
    case "raw-string":
      return `a string with raw bytes ${node.bytes.map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("")}`;
    case "array":
      return node.items.length === 0 ? "[]" : `an array of ${node.items.length}`;
    case "object":
      return node.entries.length === 0 ? "{}" : `{${node.entries.map(([key, value]) => `${describeKey(key)}: ${describeNode(value)}`).join(", ")}}`;
    case "deep":
      return `${node.depth} nested ${node.shape}s`;
    case "long-string":
      return `a string of ${node.length} characters`;
    case "long-array":
      return `an array of ${node.length} × ${describeNode(node.item)}`;
    case "many-keys":
      return `an object with ${node.count} keys`;
  }
}

/** A key as a reader sees it: quoted text, or its raw bytes. */
export function describeKey(key: JsonKey): string {
  return typeof key === "string" ? JSON.stringify(key) : `raw ${key.bytes.map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("")}`;
}
