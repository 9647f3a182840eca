import type { Document } from "mongoose";
import type { ModelAnalysis } from "./model-analysis.js";
import type { ResponseDocument } from "./model-router-options.js";
import { toUtcMidnight } from "./schema/date-only.js";

/** Turns what the database returned into the plain document a response carries. */
export interface DocumentShaper {
  /** A lean read (plain object straight from the driver); shaped in place. */
  lean(doc: Record<string, unknown>): ResponseDocument;
  /** A hydrated document (after create or update, or for models with rich serialization). */
  hydrated(doc: Document<unknown>): ResponseDocument;
}

const TO_OBJECT = { virtuals: false, versionKey: false, flattenMaps: true, depopulate: false } as const;
const TO_JSON = { virtuals: true, versionKey: false, flattenMaps: true } as const;

/**
 * The one place responses are shaped, chosen per model at start: plain models skip mongoose
 * documents entirely (lean reads plus `id`, no `__v`, DateOnly days normalized); models with
 * virtuals, getters or a toJSON transform go through `toJSON({virtuals: true})`. Either way
 * `select: false` fields never leave the server.
 *
 * @example
 * const shape = documentShaper(analysis);
 * res.json({ data: shape.lean(await Todo.findById(id).lean()) });
 */
export function documentShaper(analysis: ModelAnalysis): DocumentShaper {
  const { dateOnlyPaths, hiddenPaths, richSerialization } = analysis;
  return {
    lean(doc) {
      delete doc.__v;
      for (const path of dateOnlyPaths) {
        const value = doc[path];
        if (value instanceof Date) doc[path] = toUtcMidnight(value);
      }
      doc.id = String(doc._id);
      return doc;
    },
    hydrated(doc: Document<unknown>) {
      const shaped = (richSerialization ? doc.toJSON(TO_JSON) : doc.toObject(TO_OBJECT)) as ResponseDocument;
      for (const path of hiddenPaths) delete shaped[path];
      if (shaped.id === undefined && shaped._id !== undefined) shaped.id = String(shaped._id);
      return shaped;
    },
  };
}
