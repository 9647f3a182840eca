import { Ajv, type Options } from "ajv";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** The ajv behaviours validation settings choose between. */
export interface AjvVariant {
  coerceTypes: boolean;
  removeAdditional: boolean;
}

// Four possible variants, each an immutable compiler: caching them is sharing pure functions, not
// app state, so apps with different settings in one process never see each other's choices.
const instances = new Map<string, Ajv>();

/**
 * The ajv instance for a variant: all errors reported (clients fix every field at once), formats
 * from ajv-formats, and *no* defaults applied — mongoose applies defaults on create, and a PATCH
 * must never reset a field to its default.
 *
 * @example
 * const validate = ajvFor({ coerceTypes: true, removeAdditional: false }).compile(schema);
 */
export function ajvFor(variant: AjvVariant): Ajv {
  const key = `${variant.coerceTypes}:${variant.removeAdditional}`;
  let ajv = instances.get(key);
  if (!ajv) {
    const options: Options = {
      allErrors: true,
      coerceTypes: variant.coerceTypes,
      removeAdditional: variant.removeAdditional,
      useDefaults: false,
      strict: false,
      validateSchema: false,
    };
    ajv = new Ajv(options);
    addFormats(ajv);
    // Documentation-only keywords of derived schemas.
    ajv.addKeyword("x-ref");
    ajv.addFormat("decimal", /^-?\d+(\.\d+)?$/);
    instances.set(key, ajv);
  }
  return ajv;
}

/** The variant's cache key, e.g. for per-variant compiled validators. */
export function variantKey(variant: AjvVariant): string {
  return `${variant.coerceTypes}:${variant.removeAdditional}`;
}
