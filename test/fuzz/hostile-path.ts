// Path parameters and path shapes: ids of records the caller owns, of records someone else owns,
// ids of nothing, and ids that are not ids at all — malformed percent-encoding included, written
// to the request line as generated.
import fc from "fast-check";
import type { FuzzOperation } from "./openapi-operations.js";

/** Whose record an id names, resolved against the ids seen so far when the request is made. */
export type IdChoice =
  | { readonly kind: "record"; readonly whose: "own" | "other" | "admin's"; readonly pick: number }
  | { readonly kind: "missing" }
  | { readonly kind: "raw"; readonly raw: string; readonly label: string };

/** A change to the whole path: trailing slashes, dot segments, encoded separators. */
export interface PathVariant {
  readonly label: string;
  readonly apply: "suffix" | "prefix" | "upper";
  readonly text: string;
}

export interface PathPlan {
  readonly ids: readonly IdChoice[];
  readonly variant?: PathVariant;
}

const raw = (value: string, label: string): IdChoice => ({ kind: "raw", raw: value, label });

/** Values that are not a record id: wrong length, wrong alphabet, operators, broken encodings. */
export const NOT_IDS: readonly IdChoice[] = [
  raw("123", "a short number"),
  raw("z".repeat(24), "24 characters that are not hex"),
  raw("0".repeat(24), "the zero ObjectId"),
  raw("f".repeat(24), "the largest ObjectId"),
  raw("%00", "NUL"),
  raw("a%00b", "a NUL inside"),
  raw("%E0%A4%A", "malformed percent-encoding"),
  raw("%", "a lone %"),
  raw("%zz", "a non-hex escape"),
  raw("%C0%80", "an overlong NUL (invalid UTF-8)"),
  raw("%ED%A0%80", "an encoded surrogate (invalid UTF-8)"),
  raw("%FF%FE", "invalid UTF-8 bytes"),
  raw("..%2F..%2Fopenapi.json", "an encoded path traversal"),
  raw("%2e%2e", "an encoded dot-dot"),
  raw("$where", "an operator"),
  raw("%7B%22%24gt%22%3A%22%22%7D", 'an encoded {"$gt":""}'),
  raw("__proto__", "__proto__"),
  raw("constructor", "constructor"),
  raw("x".repeat(4_000), "4000 characters"),
  raw("null", "the text null"),
  raw("undefined", "the text undefined"),
  raw("[object Object]".replace(/ /g, "%20"), "the text [object Object]"),
  raw("-1", "-1"),
  raw("1e10", "1e10"),
  raw("%20", "a space"),
];

export const PATH_VARIANTS: readonly PathVariant[] = [
  { label: "a trailing slash", apply: "suffix", text: "/" },
  { label: "a trailing %00", apply: "suffix", text: "%00" },
  { label: "a trailing lone %", apply: "suffix", text: "%" },
  { label: "a trailing malformed escape", apply: "suffix", text: "%E0%A4%A" },
  { label: "a trailing /..", apply: "suffix", text: "/.." },
  { label: "a trailing ;param", apply: "suffix", text: ";fuzz=1" },
  { label: "a trailing encoded slash", apply: "suffix", text: "%2F" },
  { label: "a trailing invalid UTF-8 escape", apply: "suffix", text: "%FF" },
  { label: "a double leading slash", apply: "prefix", text: "/" },
  { label: "a leading /./", apply: "prefix", text: "/." },
  { label: "upper case", apply: "upper", text: "" },
];

/**
 * Plans for an operation's path: for each `{param}`, an id of the caller's own record, of
 * another user's or the admin's, of no record, or something that is not an id; sometimes a
 * changed path shape.
 */
export function pathPlans(operation: FuzzOperation): fc.Arbitrary<PathPlan> {
  const count = (operation.path.match(/\{[^}]+\}/g) ?? []).length;
  const id: fc.Arbitrary<IdChoice> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant("record" as const), whose: fc.constantFrom("own" as const, "other" as const, "admin's" as const), pick: fc.nat(50) }) },
    { weight: 1, arbitrary: fc.constant({ kind: "missing" as const }) },
    { weight: 4, arbitrary: fc.constantFrom(...NOT_IDS) },
  );
  return fc.record(
    {
      ids: fc.array(id, { minLength: count, maxLength: count }),
      variant: fc.option(fc.constantFrom(...PATH_VARIANTS), { nil: undefined, freq: 8 }),
    },
    { requiredKeys: ["ids"] },
  );
}

/**
 * The path as sent: each `{param}` replaced by its resolved value, then the variant applied.
 *
 * @example
 * renderPath("/todos/{id}", ["%E0%A4%A"], undefined); // "/todos/%E0%A4%A"
 */
export function renderPath(template: string, values: readonly string[], variant: PathVariant | undefined): string {
  let index = 0;
  const path = template.replace(/\{[^}]+\}/g, () => values[index++] ?? "");
  if (!variant) return path;
  if (variant.apply === "suffix") return path + variant.text;
  if (variant.apply === "prefix") return variant.text + path;
  return path.toUpperCase();
}
