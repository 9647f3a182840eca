import type { Binary, BSONRegExp, Code, DBRef, ObjectId, Timestamp } from "bson";
import { bsonTypeCode } from "./bson-type.js";
import { compareNumbers, numericKey } from "./numeric.js";
import type { Collation } from "./types.js";

/**
 * MongoDB's canonical type ranks (the server's `canonicalizeBSONType`): values of different ranks
 * order by rank; all numbers share one rank, strings and symbols share another. Missing
 * (`undefined`) ranks with null here, which is how sorts and comparisons treat absent fields.
 *
 * @example
 * canonicalRank(new Int32(1)) === canonicalRank(1.5); // true
 */
export function canonicalRank(v: unknown): number {
  switch (typeof v) {
    case "string":
      return RANK_STRING;
    case "number":
    case "bigint":
      return RANK_NUMBER;
    case "boolean":
      return RANK_BOOL;
    case "undefined":
      return RANK_NULL;
    case "object": {
      if (v === null) return RANK_NULL;
      if (Array.isArray(v)) return RANK_ARRAY;
      const tag = (v as { _bsontype?: unknown })._bsontype;
      if (tag !== undefined) return rankOfTag(tag, v);
      if (v instanceof Date) return RANK_DATE;
      if (v instanceof RegExp) return RANK_REGEX;
      if (v instanceof Uint8Array) return RANK_BINARY;
      return RANK_OBJECT;
    }
    default:
      return RANK_OBJECT;
  }
}

/**
 * Canonical type ranks (see {@link canonicalRank}); exported for index-bounds code that needs the
 * boundaries of a type bracket.
 *
 * @example
 * canonicalRank("x") === RANK_STRING; // true
 */
export const RANK_MINKEY = -1;
export const RANK_NULL = 5;
export const RANK_NUMBER = 10;
export const RANK_STRING = 15;
export const RANK_OBJECT = 20;
export const RANK_ARRAY = 25;
export const RANK_BINARY = 30;
export const RANK_OBJECTID = 35;
export const RANK_BOOL = 40;
export const RANK_DATE = 45;
export const RANK_TIMESTAMP = 47;
export const RANK_REGEX = 50;
export const RANK_CODE = 60;
export const RANK_CODE_W_SCOPE = 65;
export const RANK_MAXKEY = 127;

function rankOfTag(tag: unknown, v: object): number {
  switch (tag) {
    case "Int32":
    case "Double":
    case "Long":
    case "Decimal128":
      return RANK_NUMBER;
    case "ObjectId":
      return RANK_OBJECTID;
    case "Binary":
      return RANK_BINARY;
    case "Timestamp":
      return RANK_TIMESTAMP;
    case "BSONRegExp":
      return RANK_REGEX;
    case "MinKey":
      return RANK_MINKEY;
    case "MaxKey":
      return RANK_MAXKEY;
    case "BSONSymbol":
      return RANK_STRING;
    case "Code": {
      const scope = (v as Code).scope;
      return scope === null || scope === undefined ? RANK_CODE : RANK_CODE_W_SCOPE;
    }
    default:
      return RANK_OBJECT; // DBRef and unknown wrappers are documents in BSON
  }
}

// ---------------------------------------------------------------------------------------------
// Collation

/** A string comparator derived from a collation; `undefined` means simple binary comparison. */
export type StringComparator = (a: string, b: string) => number;

const collatorCache = new Map<string, StringComparator | undefined>();

/**
 * The string comparator for a collation (cached per distinct spec). `locale: "simple"` or no
 * collation gives `undefined`, meaning binary (code point) order. Strength 1 ignores case and
 * accents, 2 ignores case only, 3+ (MongoDB's default) distinguishes both; `numericOrdering` and
 * `caseFirst` map to the matching `Intl.Collator` options.
 *
 * @example
 * stringComparator({locale: "en", strength: 2})!("A", "a"); // 0
 */
export function stringComparator(collation: Collation | undefined): StringComparator | undefined {
  if (collation === undefined || collation === null || collation.locale === "simple") return undefined;
  const key = `${collation.locale}|${collation.strength ?? 3}|${collation.caseLevel === true}|${collation.caseFirst}|${collation.alternate}|${collation.numericOrdering === true}`;
  if (collatorCache.has(key)) return collatorCache.get(key);
  const strength = Number(collation.strength ?? 3);
  let sensitivity: "base" | "accent" | "case" | "variant";
  if (strength === 1) sensitivity = collation.caseLevel === true ? "case" : "base";
  else if (strength === 2) sensitivity = "accent";
  else sensitivity = "variant";
  let locale = collation.locale.replace(/@.*$/, "").replace(/_/g, "-");
  try {
    Intl.Collator.supportedLocalesOf([locale]);
  } catch {
    locale = "en";
  }
  // Options the collation leaves out keep the locale's own defaults, as on mongod (Danish sorts
  // upper case first, Thai ignores punctuation); `alternate: "shifted"` (with the default
  // `maxVariable: "punct"`) is what Intl calls ignorePunctuation.
  const collator = new Intl.Collator(locale, {
    sensitivity,
    usage: "sort",
    numeric: collation.numericOrdering === true,
    ...(collation.caseFirst === undefined ? {} : { caseFirst: collation.caseFirst === "off" ? "false" : collation.caseFirst }),
    ...(collation.alternate === undefined ? {} : { ignorePunctuation: collation.alternate === "shifted" }),
  });
  const fn: StringComparator = (a, b) => {
    const c = collator.compare(a, b);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  };
  collatorCache.set(key, fn);
  return fn;
}

/**
 * Binary string order as the server compares UTF-8 bytes: code point order. JS `<` compares UTF-16
 * code units, which differs only between surrogate pairs and U+E000..U+FFFF, so fix that case up.
 *
 * @example
 * compareStringsBinary("a", "b"); // -1
 */
export function compareStringsBinary(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        const xs = x <= 0xdfff;
        const ys = y <= 0xdfff;
        if (xs !== ys) return xs ? 1 : -1; // a surrogate encodes a code point above U+FFFF
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Comparison

/**
 * Compares two BSON values in MongoDB's sort order: MinKey < null/missing < numbers < strings <
 * objects < arrays < BinData < ObjectId < booleans < dates < timestamps < regexes < code < MaxKey.
 * Numbers compare by exact value across Int32/Long/Double/Decimal128 (NaN lowest); objects compare
 * field by field (type, then name, then value); arrays element by element. With a collation, strings
 * (also nested ones) use it. Returns -1, 0 or 1.
 *
 * @example
 * compareBson(new Int32(1), "a");                  // -1
 * compareBson({a: 1}, {a: 1, b: 2});               // -1
 * compareBson("a", "A", {locale: "en", strength: 2}); // 0
 */
export function compareBson(a: unknown, b: unknown, collation?: Collation): number {
  return compareValues(a, b, stringComparator(collation));
}

/**
 * {@link compareBson} with a pre-resolved string comparator (what compiled matchers and sorts use,
 * so the collator lookup happens once).
 *
 * @example
 * compareValues("a", "b", undefined); // -1
 */
export function compareValues(a: unknown, b: unknown, cmp: StringComparator | undefined): number {
  if (a === b) return 0;
  // Fast paths for the most common pairs: two strings, two Int32/Double wrappers.
  if (typeof a === "string") {
    if (typeof b === "string") return cmp === undefined ? compareStringsBinary(a, b) : cmp(a, b);
  } else if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const ta = (a as { _bsontype?: unknown })._bsontype;
    const tb = (b as { _bsontype?: unknown })._bsontype;
    if ((ta === "Int32" || ta === "Double") && (tb === "Int32" || tb === "Double")) {
      const x = (a as { value: number }).value;
      const y = (b as { value: number }).value;
      if (x < y) return -1;
      if (x > y) return 1;
      if (x === y) return 0;
    }
  }
  const ra = canonicalRank(a);
  const rb = canonicalRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case RANK_NULL:
    case RANK_MINKEY:
    case RANK_MAXKEY:
      return 0;
    case RANK_NUMBER:
      return compareNumbers(a, b);
    case RANK_STRING: {
      const x = stringOf(a);
      const y = stringOf(b);
      return cmp === undefined ? compareStringsBinary(x, y) : cmp(x, y);
    }
    case RANK_OBJECT:
      return compareObjects(asDocument(a), asDocument(b), cmp);
    case RANK_ARRAY:
      return compareArrays(a as unknown[], b as unknown[], cmp);
    case RANK_BINARY:
      return compareBinary(a, b);
    case RANK_OBJECTID:
      return compareObjectIds(a as ObjectId, b as ObjectId);
    case RANK_BOOL:
      return a === b ? 0 : a === false ? -1 : 1;
    case RANK_DATE: {
      const x = (a as Date).getTime();
      const y = (b as Date).getTime();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case RANK_TIMESTAMP: {
      const ta = a as Timestamp;
      const tb = b as Timestamp;
      if (ta.t !== tb.t) return ta.t < tb.t ? -1 : 1;
      return ta.i < tb.i ? -1 : ta.i > tb.i ? 1 : 0;
    }
    case RANK_REGEX: {
      const [pa, fa] = regexParts(a);
      const [pb, fb] = regexParts(b);
      return compareStringsBinary(pa, pb) || compareStringsBinary(fa, fb);
    }
    case RANK_CODE:
      return compareStringsBinary((a as Code).code, (b as Code).code);
    case RANK_CODE_W_SCOPE:
      return (
        compareStringsBinary((a as Code).code, (b as Code).code) ||
        compareObjects((a as Code).scope ?? {}, (b as Code).scope ?? {}, cmp)
      );
    default:
      return 0;
  }
}

/**
 * MongoDB equality: numbers equal across types (`1 == 1.0 == NumberLong(1) == Decimal128("1.0")`),
 * objects equal only with the same fields in the same order, null equals missing.
 *
 * @example
 * bsonEquals(new Int32(1), Decimal128.fromString("1.0")); // true
 */
export function bsonEquals(a: unknown, b: unknown, collation?: Collation): boolean {
  return compareValues(a, b, stringComparator(collation)) === 0;
}

function stringOf(v: unknown): string {
  return typeof v === "string" ? v : String((v as { value: unknown }).value);
}

/**
 * The fields of a document-like value in order: plain objects as they are, DBRef in its BSON
 * shape (`$ref`, `$id`, `$db`, extra fields).
 *
 * @example
 * asDocument({a: 1}); // {a: 1}
 */
export function asDocument(v: unknown): Record<string, unknown> {
  const tag = (v as { _bsontype?: unknown })._bsontype;
  if (tag === "DBRef") {
    const r = v as DBRef;
    const out: Record<string, unknown> = { $ref: r.collection, $id: r.oid };
    if (r.db !== undefined && r.db !== "") out.$db = r.db;
    Object.assign(out, r.fields);
    return out;
  }
  return v as Record<string, unknown>;
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>, cmp: StringComparator | undefined): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const na = ka[i]!;
    const nb = kb[i]!;
    const va = a[na];
    const vb = b[nb];
    // Per element: canonical type first, then field name, then value (BSONObj::woCompare).
    const ra = canonicalRank(va);
    const rb = canonicalRank(vb);
    if (ra !== rb) return ra < rb ? -1 : 1;
    if (na !== nb) return compareStringsBinary(na, nb);
    const c = compareValues(va, vb, cmp);
    if (c !== 0) return c;
  }
  return ka.length < kb.length ? -1 : ka.length > kb.length ? 1 : 0;
}

function compareArrays(a: unknown[], b: unknown[], cmp: StringComparator | undefined): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ra = canonicalRank(a[i]);
    const rb = canonicalRank(b[i]);
    if (ra !== rb) return ra < rb ? -1 : 1;
    const c = compareValues(a[i], b[i], cmp);
    if (c !== 0) return c;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function binaryParts(v: unknown): [number, Uint8Array] {
  if (v instanceof Uint8Array) return [0, v];
  const b = v as Binary;
  const bytes = b.buffer.subarray(0, b.position);
  return [b.sub_type, bytes];
}

function compareBinary(a: unknown, b: unknown): number {
  // BinData orders by length, then subtype, then bytes.
  const [sa, ba] = binaryParts(a);
  const [sb, bb] = binaryParts(b);
  if (ba.length !== bb.length) return ba.length < bb.length ? -1 : 1;
  if (sa !== sb) return sa < sb ? -1 : 1;
  for (let i = 0; i < ba.length; i++) {
    if (ba[i] !== bb[i]) return ba[i]! < bb[i]! ? -1 : 1;
  }
  return 0;
}

interface OidWords {
  i0?: number;
  i1?: number;
  i2?: number;
  i3?: number;
}

function compareObjectIds(a: ObjectId, b: ObjectId): number {
  const x = a as unknown as OidWords;
  const y = b as unknown as OidWords;
  if (typeof x.i0 === "number" && typeof y.i0 === "number") {
    // bson 7 keeps an ObjectId as four 24-bit big-endian words: comparing them in order is a
    // byte-wise comparison without materialising the bytes.
    if (x.i0 !== y.i0) return x.i0 < y.i0 ? -1 : 1;
    if (x.i1 !== y.i1) return x.i1! < y.i1! ? -1 : 1;
    if (x.i2 !== y.i2) return x.i2! < y.i2! ? -1 : 1;
    if (x.i3 !== y.i3) return x.i3! < y.i3! ? -1 : 1;
    return 0;
  }
  return compareStringsBinary(a.toHexString(), b.toHexString());
}

function regexParts(v: unknown): [string, string] {
  if (v instanceof RegExp) return [v.source, v.flags];
  const r = v as BSONRegExp;
  return [r.pattern, r.options];
}

// ---------------------------------------------------------------------------------------------
// Equality keys

/**
 * A string key such that values equal under {@link bsonEquals} (no collation) share a key and
 * unequal values never do: `equalityKey(new Int32(1)) === equalityKey(new Double(1))`. Null and
 * missing share a key (as they do in indexes). Cheap for the common `_id` types (ObjectId, string,
 * numbers).
 *
 * @example
 * const byId = new Map<string, Document>();
 * byId.set(equalityKey(doc._id), doc);
 */
export function equalityKey(v: unknown): string {
  if (typeof v === "string") return "s" + v;
  if (typeof v === "object" && v !== null) {
    const tag = (v as { _bsontype?: unknown })._bsontype;
    if (tag === "ObjectId") return oidKey(v as ObjectId);
    if (tag === "Int32") return "n" + String((v as { value: number }).value);
    // Symbols equal strings; at top level both use the raw (unquoted) form.
    if (tag === "BSONSymbol") return "s" + String((v as { value: unknown }).value);
  }
  return nestedKey(v);
}

/**
 * ObjectIds are the most common `_id`: encode their 12 bytes as 8 UTF-16 units (12 bits each, never
 * surrogates) instead of 24 hex digits. Fixed length keeps the encoding self-delimiting.
 */
function oidKey(o: ObjectId): string {
  const w = o as unknown as OidWords;
  if (typeof w.i0 === "number") {
    const { i0, i1, i2, i3 } = w as Required<OidWords>;
    return "o" + String.fromCharCode(i0 >>> 12, i0 & 0xfff, i1 >>> 12, i1 & 0xfff, i2 >>> 12, i2 & 0xfff, i3 >>> 12, i3 & 0xfff);
  }
  const hex = o.toHexString();
  let s = "o";
  for (let i = 0; i < 24; i += 3) s += String.fromCharCode(parseInt(hex.slice(i, i + 3), 16));
  return s;
}

/** Self-delimiting encoding: usable inside array/object keys without ambiguity. */
function nestedKey(v: unknown): string {
  switch (typeof v) {
    case "string":
      return "s" + JSON.stringify(v);
    case "number":
    case "bigint":
      return "n" + numericKey(v);
    case "boolean":
      return v ? "t" : "f";
    case "undefined":
      return "z";
    case "object": {
      if (v === null) return "z";
      if (Array.isArray(v)) {
        let s = "[";
        for (let i = 0; i < v.length; i++) s += (i === 0 ? "" : ",") + nestedKey(v[i]);
        return s + "]";
      }
      const tag = (v as { _bsontype?: unknown })._bsontype;
      if (tag !== undefined) return taggedKey(tag, v);
      if (v instanceof Date) return "d" + v.getTime();
      if (v instanceof RegExp) return "r" + JSON.stringify(v.source) + "/" + v.flags;
      if (v instanceof Uint8Array) return "b0:" + Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
      return objectKey(v as Record<string, unknown>);
    }
    default:
      return "?" + String(v);
  }
}

function objectKey(o: Record<string, unknown>): string {
  let s = "{";
  let first = true;
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
    s += (first ? "" : ",") + JSON.stringify(k) + ":" + nestedKey(o[k]);
    first = false;
  }
  return s + "}";
}

function taggedKey(tag: unknown, v: object): string {
  switch (tag) {
    case "Int32":
    case "Double":
    case "Long":
    case "Decimal128":
      return "n" + numericKey(v);
    case "ObjectId":
      return oidKey(v as ObjectId);
    case "BSONSymbol":
      return "s" + JSON.stringify(String((v as { value: unknown }).value));
    case "Binary": {
      const [sub, bytes] = binaryParts(v);
      return "b" + sub + ":" + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
    }
    case "Timestamp":
      return "T" + (v as Timestamp).t + ":" + (v as Timestamp).i;
    case "BSONRegExp":
      return "r" + JSON.stringify((v as BSONRegExp).pattern) + "/" + (v as BSONRegExp).options;
    case "MinKey":
      return "-";
    case "MaxKey":
      return "+";
    case "Code": {
      const c = v as Code;
      return c.scope === null || c.scope === undefined ? "c" + JSON.stringify(c.code) : "C" + JSON.stringify(c.code) + objectKey(c.scope);
    }
    case "DBRef":
      return objectKey(asDocument(v));
    default:
      return objectKey(v as Record<string, unknown>);
  }
}

/**
 * Type-exact deep equality: same BSON types (Int32 vs Double differ), same values, same field
 * order. This is the server's "binary equal" test that decides whether an update changed anything.
 *
 * @example
 * bsonIdentical(new Int32(1), new Double(1)); // false
 * bsonIdentical({a: [1]}, {a: [1]});          // true
 */
export function bsonIdentical(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ta = bsonTypeCode(a);
  if (ta !== bsonTypeCode(b)) return false;
  switch (ta) {
    case 1: // double: compare bits, so -0 and 0 differ like the server's memcmp
      return Object.is(numberOf(a), numberOf(b));
    case 3: {
      const x = asDocument(a);
      const y = asDocument(b);
      const kx = Object.keys(x);
      const ky = Object.keys(y);
      if (kx.length !== ky.length) return false;
      for (let i = 0; i < kx.length; i++) {
        if (kx[i] !== ky[i] || !bsonIdentical(x[kx[i]!], y[ky[i]!])) return false;
      }
      return true;
    }
    case 4: {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!bsonIdentical(x[i], y[i])) return false;
      return true;
    }
    case 19:
      return String(a) === String(b);
    case 2:
    case 14:
      return stringOf(a) === stringOf(b);
    default:
      return compareValues(a, b, undefined) === 0;
  }
}

function numberOf(v: unknown): number {
  return typeof v === "number" ? v : (v as { value: number }).value;
}
