// Request bodies: a plausible document for the operation's schema with hostile values and keys
// planted at any depth, wrapped in a wrong or lying envelope now and then (malformed JSON, a
// non-JSON media type, a Content-Encoding that does not decode).
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { describeKey, describeNode, fromValue, serializeJson, type JsonKey, type JsonNode } from "./hostile-json.js";
import { EMPTY_VALUES, HOSTILE_KEYS, HOSTILE_STRINGS, INVALID_UTF8, KEYED_OBJECTS, OPERATOR_VALUES, hostileValue, isOperatorKey, wrongTypeValues, type LabelledNode } from "./hostile-values.js";
import type { Schema } from "./openapi-operations.js";
import { plausibleValue } from "./schema-values.js";

/** Where a mutation lands: the n-th node of the document (pre-order), or a property path. */
export type BodyLocation = number | readonly string[];

export type BodyMutation =
  | { readonly kind: "replace"; readonly at: BodyLocation; readonly value: LabelledNode }
  | { readonly kind: "insert"; readonly at: BodyLocation; readonly key: JsonKey; readonly value: LabelledNode };

/** A lie about the body: its media type, its encoding, or its syntax. */
export interface BodyEnvelope {
  /** The Content-Type header; null sends none. */
  readonly contentType: string | null;
  readonly encoding: EncodingName;
  readonly malformed?: MalformedName;
}

/** What a body starts from: a value generated from the schema, or one the app accepted before. */
export type BodyBase = { readonly kind: "plausible"; readonly value: unknown } | { readonly kind: "accepted"; readonly pick: number };

/** Everything needed to build one body, as plain data fast-check can print and shrink. */
export interface BodyPlan {
  readonly base: BodyBase;
  readonly mutations: readonly BodyMutation[];
  readonly envelope: BodyEnvelope;
}

/** A rendered body: bytes, headers, and what it attacks. */
export interface RenderedBody {
  readonly bytes: Buffer;
  readonly headers: Record<string, string>;
  readonly attacks: string[];
  /** Why the framework must refuse it, if it must. */
  readonly mustRefuse?: string;
}

const JSON_TYPE = "application/json";

/** Media types that are JSON to the framework (`application/json`, `+json`). */
const JSON_CONTENT_TYPES = [JSON_TYPE, "application/json; charset=utf-8", "application/merge-patch+json", "APPLICATION/JSON", 'application/json; charset="UTF-8"'];
/** Media types a route taking JSON must answer with 415. */
const NON_JSON_CONTENT_TYPES: ReadonlyArray<string | null> = [null, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=fuzz", "application/xml", "application/jsonx", "json"];
/** Media types whose answer is not prescribed, only that it is not a fault. */
const ODD_CONTENT_TYPES = ["application/json; charset=utf-16", "application/json; charset=latin1", "application/json;;;", "application/json, text/plain", "*/*", "application/json; charset=\u00ff"];

const ENCODINGS = {
  none: { header: undefined, label: "" },
  identity: { header: "identity", label: "Content-Encoding identity" },
  gzip: { header: "gzip", label: "a gzip-compressed body" },
  deflate: { header: "deflate", label: "a deflate-compressed body" },
  br: { header: "br", label: "a brotli-compressed body" },
  "gzip-garbage": { header: "gzip", label: "Content-Encoding gzip over bytes that are not gzip" },
  "deflate-garbage": { header: "deflate", label: "Content-Encoding deflate over bytes that are not deflate" },
  "br-garbage": { header: "br", label: "Content-Encoding br over bytes that are not brotli" },
  "gzip-truncated": { header: "gzip", label: "a gzip body cut short" },
  "gzip-bomb": { header: "gzip", label: "a gzip body that inflates past the body limit" },
  unsupported: { header: "compress", label: "an unsupported Content-Encoding (compress)" },
  stacked: { header: "gzip, br", label: "stacked Content-Encodings (gzip, br)" },
  unknown: { header: "x-fuzz", label: "an unknown Content-Encoding" },
} as const;
type EncodingName = keyof typeof ENCODINGS;
/** Encodings after which the body cannot be read as the JSON it claims to be. */
const UNREADABLE: ReadonlySet<EncodingName> = new Set(["gzip-garbage", "deflate-garbage", "br-garbage", "gzip-truncated", "gzip-bomb", "unsupported", "stacked", "unknown"]);

const MALFORMED = {
  truncated: "JSON cut in half",
  "trailing-garbage": "JSON followed by garbage",
  "single-quotes": "single-quoted JSON",
  "trailing-comma": "a trailing comma",
  "raw-control": "a raw control character inside a string",
  nan: "NaN as a value",
  "unquoted-keys": "unquoted keys",
  comment: "a comment before the JSON",
  "two-documents": "two JSON documents",
  "unterminated-string": "an unterminated string",
  scalar: "a bare string instead of an object",
  "bad-escape": "an invalid escape (\\x00)",
  "lone-surrogate-escape": "a lone surrogate escape (\\udfff)",
} as const;
type MalformedName = keyof typeof MALFORMED;
/**
 * Why each malformed form must be refused; undefined for the one that is valid JSON after all
 * (a lone surrogate escape parses, and its fate is the schema's to decide).
 */
const MALFORMED_REFUSAL: Readonly<Record<MalformedName, string | undefined>> = {
  ...(Object.fromEntries(Object.keys(MALFORMED).map((name) => [name, "malformed JSON"])) as Record<MalformedName, string>),
  scalar: "a JSON body that is not an object",
  "lone-surrogate-escape": undefined,
};

/**
 * Plans for bodies of an operation whose body follows `schema`: a plausible or previously
 * accepted document with zero to three hostile mutations, sometimes malformed or in a lying
 * envelope.
 *
 * @example
 * fc.sample(bodyPlans(todoCreateSchema, 1_048_576, true), 1);
 */
export function bodyPlans(schema: Schema, bodyLimit: number, hasAccepted: boolean): fc.Arbitrary<BodyPlan> {
  const mutation: fc.Arbitrary<BodyMutation> = fc.oneof(
    fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: hostileValue(bodyLimit) }),
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), key: fc.constantFrom(...HOSTILE_KEYS), value: hostileValue(bodyLimit) }),
  );
  return fc.record({
    // The minimal document passes custom rules most often, a fuller one reaches more fields, and
    // one the app accepted gets past rules no schema states.
    base: fc.oneof(
      ...[plausibleValue(schema, "none"), plausibleValue(schema)].map((arbitrary) => arbitrary.map((value): BodyBase => ({ kind: "plausible", value }))),
      ...(hasAccepted ? [fc.nat().map((pick): BodyBase => ({ kind: "accepted", pick }))] : []),
    ),
    mutations: fc.array(mutation, { minLength: 0, maxLength: 3 }),
    envelope: envelopes(),
  });
}

/** Mostly honest envelopes; the rest split between media types, encodings and syntax. */
function envelopes(): fc.Arbitrary<BodyEnvelope> {
  const honest: BodyEnvelope = { contentType: JSON_TYPE, encoding: "none" };
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(honest) },
    { weight: 2, arbitrary: fc.constantFrom(...JSON_CONTENT_TYPES).map((contentType): BodyEnvelope => ({ contentType, encoding: "none" })) },
    { weight: 2, arbitrary: fc.constantFrom(...NON_JSON_CONTENT_TYPES).map((contentType): BodyEnvelope => ({ contentType, encoding: "none" })) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_CONTENT_TYPES).map((contentType): BodyEnvelope => ({ contentType, encoding: "none" })) },
    { weight: 3, arbitrary: fc.constantFrom(...(Object.keys(ENCODINGS) as EncodingName[])).map((encoding): BodyEnvelope => ({ contentType: JSON_TYPE, encoding })) },
    { weight: 3, arbitrary: fc.constantFrom(...(Object.keys(MALFORMED) as MalformedName[])).map((malformed): BodyEnvelope => ({ contentType: JSON_TYPE, encoding: "none", malformed })) },
  );
}

/**
 * Plans for a body sent where the operation takes none (a GET, a DELETE): the body parser still
 * reads it, so its encoding and syntax are attacked on every route.
 */
export function strayBodyPlans(bodyLimit: number): fc.Arbitrary<BodyPlan> {
  return fc.record({
    base: fc.constant<BodyBase>({ kind: "plausible", value: {} }),
    mutations: fc.array(fc.record({ kind: fc.constant("insert" as const), at: fc.constant(0), key: fc.constantFrom(...HOSTILE_KEYS), value: hostileValue(bodyLimit) }), { maxLength: 2 }),
    envelope: envelopes(),
  });
}

/**
 * The deterministic sweep over a body: every property (nested ones too, and every part of the
 * accepted body when there is one) set in turn to each of `null`, `""`, `0`, `false`, `[]`, `{}`,
 * every wrong type, an operator object, a NUL string, invalid UTF-8 and objects with hostile keys;
 * then every hostile key added to every object of the body. The rest of the document is the
 * richest body the app accepted, else the minimal plausible one. Random plans may miss a
 * property; this never does.
 *
 * @example
 * sweepPlans(todoCreateSchema, 42, undefined).length; // 5 properties × 18 values + 25 keys
 */
export function sweepPlans(schema: Schema, seed: number, accepted: unknown): BodyPlan[] {
  const base = sweepBase(schema, seed, accepted);
  const document = fromValue(base.value);
  const honest: BodyEnvelope = { contentType: JSON_TYPE, encoding: "none" };
  const paths = new Map<string, string[]>();
  for (const path of [...propertyPaths(schema, []), ...documentPaths(document, [])]) paths.set(path.join("/"), path);
  const plans: BodyPlan[] = [];
  for (const path of paths.values()) {
    const property = schemaAt(schema, path);
    const values = [...EMPTY_VALUES, ...(property ? wrongTypeValues(property) : []), OPERATOR_VALUES[0]!, HOSTILE_STRINGS[1]!, INVALID_UTF8[0]!, KEYED_OBJECTS[1]!];
    for (const value of values) plans.push({ base, mutations: [{ kind: "replace", at: path, value }], envelope: honest });
  }
  for (const path of [[], ...documentPaths(document, [])].filter((path) => nodeAt(document, path)?.kind === "object")) {
    // Every hostile key at the top; inside, those the driver and the prototype chain care about.
    for (const key of path.length === 0 ? HOSTILE_KEYS : HOSTILE_KEYS.filter(isDriverSensitiveKey)) plans.push({ base, mutations: [{ kind: "insert", at: path, key, value: { label: "1", node: { kind: "value", value: 1 } } }], envelope: honest });
  }
  return plans;
}

/** The document a sweep plants its values in: the accepted body, else the minimal plausible one. */
export function sweepBase(schema: Schema, seed: number, accepted: unknown): { readonly kind: "plausible"; readonly value: unknown } {
  return { kind: "plausible", value: accepted ?? fc.sample(plausibleValue(schema, "none"), { seed, numRuns: 1 })[0] };
}

/** Every property path of a schema, through nested objects and the first item of arrays. */
function propertyPaths(schema: Schema, prefix: string[], depth = 0): string[][] {
  if (depth > 4) return [];
  const found: string[][] = [];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const path = [...prefix, name];
    found.push(path, ...propertyPaths(property, path, depth + 1));
    if (property.items && typeof property.items === "object") found.push(...propertyPaths(property.items as Schema, [...path, "0"], depth + 1));
  }
  return found;
}

/** Every path inside a document (the root aside); of an array, only the first item's. */
function documentPaths(node: JsonNode, prefix: string[]): string[][] {
  const children: Array<[string, JsonNode]> =
    node.kind === "array" ? node.items.slice(0, 1).map((item) => ["0", item]) : node.kind === "object" ? node.entries.filter((entry): entry is [string, JsonNode] => typeof entry[0] === "string").map(([key, value]) => [key, value]) : [];
  return children.flatMap(([key, child]) => [[...prefix, key], ...documentPaths(child, [...prefix, key])]);
}

/** `$`, dotted, NUL, prototype and non-UTF-8 keys: what breaks a driver or a plain-object walk. */
function isDriverSensitiveKey(key: JsonKey): boolean {
  return typeof key !== "string" || /^\$|\.|\u0000|^(?:__proto__|constructor|prototype)$/.test(key);
}

/** The schema of the property at `path`, if the schema describes it. */
function schemaAt(schema: Schema, path: readonly string[]): Schema | undefined {
  let current: Schema | undefined = schema;
  for (const part of path) {
    if (!current) return undefined;
    current = /^\d+$/.test(part) && current.items ? (current.items as Schema) : ((current.properties as Record<string, Schema> | undefined)?.[part] ?? undefined);
  }
  return current;
}

/**
 * The bytes and headers of a plan, with the attacks it carries and whether a 2xx would break
 * the framework's contract (docs/rest.md: non-JSON bodies are 415, `$`-prefixed keys 400).
 *
 * @example
 * renderBody(plan, { takesJson: true, bodyLimit: 1_048_576, refuseOperatorKeys: true, accepted: () => undefined });
 */
export function renderBody(
  plan: BodyPlan,
  options: { takesJson: boolean; bodyLimit: number; refuseOperatorKeys: boolean; accepted: (pick: number) => unknown },
): RenderedBody {
  const attacks: string[] = [];
  const accepted = plan.base.kind === "accepted" ? options.accepted(plan.base.pick) : undefined;
  if (plan.base.kind === "accepted" && accepted !== undefined) attacks.push("starting from a body the app accepted");
  let document = fromValue(plan.base.kind === "plausible" ? plan.base.value : (accepted ?? {}));
  let operatorKey = false;
  for (const mutation of plan.mutations) {
    const path = resolveLocation(document, mutation.at);
    if (mutation.kind === "replace") {
      document = setAt(document, path, mutation.value.node);
      attacks.push(`${mutation.value.label} at /${path.join("/")}`);
    } else {
      document = insertAt(document, path, mutation.key, mutation.value.node);
      operatorKey ||= isOperatorKey(mutation.key);
      attacks.push(`key ${describeKey(mutation.key)} = ${describeNode(mutation.value.node)} near /${path.join("/")}`);
    }
  }
  operatorKey ||= plan.mutations.some((mutation) => mutation.value.node.kind === "object" && mutation.value.node.entries.some(([key]) => isOperatorKey(key)));

  let bytes = serializeJson(document);
  const { contentType, encoding, malformed } = plan.envelope;
  const refusals: string[] = [];
  if (malformed) {
    bytes = malform(bytes, malformed);
    attacks.push(MALFORMED[malformed]);
    const refusal = MALFORMED_REFUSAL[malformed];
    if (options.takesJson && refusal) refusals.push(refusal);
  }
  const headers: Record<string, string> = {};
  if (contentType !== null) headers["content-type"] = contentType;
  if (contentType !== JSON_TYPE) attacks.push(contentType === null ? "no Content-Type" : `Content-Type ${contentType}`);
  if (options.takesJson && NON_JSON_CONTENT_TYPES.includes(contentType)) refusals.push("a body that is not JSON");
  const { header, label } = ENCODINGS[encoding];
  if (header) headers["content-encoding"] = header;
  if (label) attacks.push(label);
  bytes = encode(bytes, encoding, options.bodyLimit);
  if (UNREADABLE.has(encoding)) refusals.push("a body that cannot be decoded");
  if (operatorKey && options.takesJson && options.refuseOperatorKeys) refusals.push("a $-prefixed key in the body");
  return { bytes, headers, attacks, mustRefuse: refusals[0] };
}

/** The path of the n-th node (pre-order), or the given property path. */
function resolveLocation(document: JsonNode, at: BodyLocation): string[] {
  if (typeof at !== "number") return [...at];
  const paths: string[][] = [];
  const visit = (node: JsonNode, path: string[]) => {
    paths.push(path);
    if (node.kind === "array") node.items.forEach((item, index) => visit(item, [...path, String(index)]));
    if (node.kind === "object") node.entries.forEach(([key, value]) => typeof key === "string" && visit(value, [...path, key]));
  };
  visit(document, []);
  return paths[at % paths.length]!;
}

/** The document with the node at `path` replaced (missing objects and properties created). */
function setAt(node: JsonNode, path: readonly string[], value: JsonNode): JsonNode {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (node.kind === "array" && /^\d+$/.test(head)) {
    const index = Number(head);
    const items = [...node.items];
    while (items.length <= index) items.push({ kind: "object", entries: [] });
    items[index] = setAt(items[index]!, rest, value);
    return { kind: "array", items };
  }
  const entries = node.kind === "object" ? [...node.entries] : [];
  const position = entries.findIndex(([key]) => key === head);
  const child = position >= 0 ? entries[position]![1] : ({ kind: "object", entries: [] } as JsonNode);
  if (position >= 0) entries[position] = [head, setAt(child, rest, value)];
  else entries.push([head, setAt(child, rest, value)]);
  return { kind: "object", entries };
}

/** The document with `key` added to the object at `path`, or to its nearest object ancestor. */
function insertAt(node: JsonNode, path: readonly string[], key: JsonKey, value: JsonNode): JsonNode {
  const target = nodeAt(node, path);
  if (target?.kind === "object") return setAt(node, path, { kind: "object", entries: [...target.entries, [key, value]] });
  if (path.length > 0) return insertAt(node, path.slice(0, -1), key, value);
  return { kind: "object", entries: [[key, value]] };
}

function nodeAt(node: JsonNode, path: readonly string[]): JsonNode | undefined {
  let current: JsonNode | undefined = node;
  for (const part of path) {
    if (current?.kind === "array") current = current.items[Number(part)];
    else if (current?.kind === "object") current = current.entries.find(([key]) => key === part)?.[1];
    else return undefined;
  }
  return current;
}

function malform(bytes: Buffer, how: MalformedName): Buffer {
  const text = bytes.toString("latin1");
  const latin1 = (value: string) => Buffer.from(value, "latin1");
  switch (how) {
    case "truncated":
      return bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2)));
    case "trailing-garbage":
      return Buffer.concat([bytes, latin1("}]garbage")]);
    case "single-quotes":
      return latin1(text.includes('"') ? text.replace(/"/g, "'") : "{'fuzz':1}");
    case "trailing-comma":
      return latin1(text.replace(/}$/, ",}").replace(/]$/, ",]"));
    case "raw-control":
      return latin1('{"fuzz":"a\u0001\u0000b"}');
    case "nan":
      return latin1('{"fuzz":NaN}');
    case "unquoted-keys":
      return latin1("{fuzz:1}");
    case "comment":
      return Buffer.concat([latin1("/* fuzz */"), bytes]);
    case "two-documents":
      return Buffer.concat([bytes, bytes]);
    case "unterminated-string":
      return latin1('{"fuzz":"');
    case "scalar":
      return latin1('"fuzz"');
    case "bad-escape":
      return latin1('{"fuzz":"\\x00"}');
    case "lone-surrogate-escape":
      return latin1('{"fuzz":"\\udfff"}');
  }
}

function encode(bytes: Buffer, encoding: EncodingName, bodyLimit: number): Buffer {
  switch (encoding) {
    case "gzip":
      return gzipSync(bytes);
    case "deflate":
      return deflateSync(bytes);
    case "br":
      return brotliCompressSync(bytes);
    case "gzip-garbage":
    case "deflate-garbage":
    case "br-garbage":
      return Buffer.concat([Buffer.from([0x1f, 0x8c, 0x00, 0xff, 0x13, 0x37]), bytes]);
    case "gzip-truncated": {
      const zipped = gzipSync(bytes);
      return zipped.subarray(0, Math.max(10, zipped.length - 6));
    }
    case "gzip-bomb":
      // Whitespace is valid JSON padding: only the size makes it a refusal.
      return gzipSync(Buffer.concat([Buffer.alloc(bodyLimit * 2, 0x20), bytes]));
    default:
      return bytes;
  }
}
