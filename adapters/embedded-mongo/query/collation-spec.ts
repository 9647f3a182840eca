import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { formatBson } from "./bson-format.js";
import { bsonTypeName } from "./bson-type.js";
import type { Collation, Document } from "./types.js";

/**
 * The locales of the MongoDB manual's "Supported Languages and Locales" table, each with the
 * variants it lists (`"<locale>@collation=<variant>"`). mongod refuses any other locale ID.
 */
const LOCALE_VARIANTS: Readonly<Record<string, string>> = {
  af: "", sq: "", am: "", ar: "compat", hy: "", as: "", az: "search", bn: "traditional", be: "",
  bs: "search", bs_Cyrl: "", bg: "", my: "", ca: "search", chr: "", zh: "big5han gb2312han unihan zhuyin",
  zh_Hant: "", hr: "search", cs: "search", da: "search", nl: "", dz: "", en: "", en_US: "", en_US_POSIX: "",
  eo: "", et: "", ee: "", fo: "", fil: "", fi: "search traditional", fr: "", fr_CA: "", gl: "search", ka: "",
  de: "search eor phonebook", de_AT: "phonebook", el: "", gu: "", ha: "", haw: "", he: "search", hi: "",
  hu: "", is: "search", ig: "", smn: "search", id: "", ga: "", it: "", ja: "unihan", kl: "search",
  kn: "traditional", kk: "", km: "", kok: "", ko: "search searchjl unihan", ky: "", lkt: "", lo: "", lv: "",
  ln: "phonetic", lt: "", dsb: "", lb: "", mk: "", ms: "", ml: "", mt: "", mr: "", mn: "", ne: "",
  se: "search", nb: "search", nn: "search", or: "", om: "", ps: "", fa: "", fa_AF: "", pl: "", pt: "",
  pa: "", ro: "", ru: "", sr: "", sr_Latn: "search", si: "dictionary", sk: "search", sl: "",
  es: "search traditional", sw: "", sv: "search", ta: "", te: "", th: "", bo: "", to: "", tr: "search",
  uk: "", hsb: "", ur: "", ug: "", vi: "traditional", wae: "", cy: "", yi: "search", yo: "", zu: "",
};

const BOOLEAN_FIELDS = new Set(["caseLevel", "numericOrdering", "normalization", "backwards"]);

const ENUM_FIELDS: Readonly<Record<string, readonly string[]>> = {
  caseFirst: ["upper", "lower", "off"],
  alternate: ["non-ignorable", "shifted"],
  maxVariable: ["punct", "space"],
};

/**
 * Validates a collation document as mongod does and returns the collation the engine compares
 * with; `undefined` for an empty document, which names no collation. `{locale: "simple"}` stays
 * as it is: binary comparison that still overrides a collection's default collation.
 *
 * Invalid specs get mongod's codes and messages: an unknown field 40415, a missing `locale`
 * 40414, a wrong type 14, a strength outside 1-5 or an unknown enum value 2, a locale the manual
 * does not list 2 (`Field 'locale' is invalid in: ...`). Valid options the engine's
 * `Intl.Collator` comparison cannot honour are refused with NotImplemented (238) rather than
 * compared another way: strength 4 or 5, `caseLevel` above strength 1, `alternate: "shifted"`
 * with `maxVariable: "space"`, `backwards: true`, `normalization: true`, a locale variant (`@collation=...`) and a locale this
 * Node.js build has no collation data for.
 *
 * @example
 * parseCollation({locale: "en", strength: 2}); // {locale: "en", strength: 2}
 * parseCollation({locale: "en", strength: 6}); // throws BadValue (2)
 * parseCollation({locale: "en", backwards: true}); // throws NotImplemented (238)
 */
export function parseCollation(spec: Document): Collation | undefined {
  for (const [field, value] of Object.entries(spec)) checkField(field, value);
  if (Object.keys(spec).length === 0) return undefined;
  const locale = spec["locale"];
  if (typeof locale !== "string") {
    throw new EngineError(40414, "BSON field 'collation.locale' is missing but a required field");
  }
  if (locale === "simple") return { locale: "simple" };
  const [base, variant] = splitLocale(locale);
  if (base === undefined) throw new EngineError(ErrorCodes.BadValue, `Field 'locale' is invalid in: ${formatBson(spec)}`);
  const strength = spec["strength"] === undefined || spec["strength"] === null ? 3 : Math.trunc(optionNumber(spec["strength"])!);
  if (variant !== undefined) unsupported(`locale variant '@collation=${variant}'`);
  if (Intl.Collator.supportedLocalesOf([base.replace(/_/g, "-")]).length === 0) unsupported(`locale '${base}'`);
  if (strength > 3) unsupported(`strength ${strength}`, " (strengths 1 to 3 are)");
  if (spec["caseLevel"] === true && strength !== 1) unsupported("caseLevel: true", ` with strength ${strength} (only with strength 1)`);
  if (spec["alternate"] === "shifted" && spec["maxVariable"] === "space") unsupported(`alternate: "shifted" with maxVariable: "space"`, ` (with "punct", the default, it is)`);
  if (spec["backwards"] === true) unsupported("backwards: true");
  if (spec["normalization"] === true) unsupported("normalization: true");
  // A fractional strength counts as its integer part, as mongod reads it.
  return spec["strength"] === undefined || optionNumber(spec["strength"]) === strength ? (spec as Collation) : { ...(spec as Collation), strength };
}

/** One field's name, type and value, with mongod's IDL wording. */
function checkField(field: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (field === "locale" || field === "version") {
    if (typeof value !== "string") wrongType(field, value, "type 'string'");
  } else if (field === "strength") {
    const n = optionNumber(value);
    if (n === undefined) wrongType(field, value, "types '[double, decimal, long, int]'");
    const strength = Math.trunc(n);
    if (strength < 0) throw new EngineError(ErrorCodes.BadValue, `BSON field 'strength' value must be >= 0, actual value '${strength}'`);
    if (strength > 5) throw new EngineError(ErrorCodes.BadValue, `BSON field 'strength' value must be <= 5, actual value '${strength}'`);
    if (!(strength >= 1)) invalidEnum(field, String(strength));
  } else if (field === "backwards") {
    if (typeof value !== "boolean") {
      throw new EngineError(ErrorCodes.TypeMismatch, `Field 'backwards' should be a boolean value, but found: ${bsonTypeName(value)}`);
    }
  } else if (BOOLEAN_FIELDS.has(field)) {
    if (typeof value !== "boolean") wrongType(field, value, "type 'bool'");
  } else if (ENUM_FIELDS[field]) {
    if (typeof value !== "string") wrongType(field, value, "type 'string'");
    if (!ENUM_FIELDS[field].includes(value)) invalidEnum(field, value);
  } else {
    throw new EngineError(40415, `BSON field 'collation.${field}' is an unknown field.`);
  }
}

/** `"de@collation=phonebook"` → `["de", "phonebook"]`; `[undefined]` when the manual lists neither. */
function splitLocale(locale: string): [string | undefined, string?] {
  const match = /^([A-Za-z_]+)(?:@collation=([a-z0-9]+))?$/.exec(locale);
  const base = match?.[1];
  if (base === undefined || !Object.hasOwn(LOCALE_VARIANTS, base)) return [undefined];
  const variant = match![2];
  if (variant !== undefined && !LOCALE_VARIANTS[base]!.split(" ").includes(variant)) return [undefined];
  return variant === undefined ? [base] : [base, variant];
}

function wrongType(field: string, value: unknown, expected: string): never {
  throw new EngineError(
    ErrorCodes.TypeMismatch,
    `BSON field 'collation.${field}' is the wrong type '${bsonTypeName(value)}', expected ${expected}`,
  );
}

function invalidEnum(field: string, value: string): never {
  throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${value}' for field 'collation.${field}' is not a valid value.`);
}

function unsupported(what: string, detail = ""): never {
  throw new EngineError(ErrorCodes.NotImplemented, `collation ${what} is not supported by the embedded engine${detail}`);
}
