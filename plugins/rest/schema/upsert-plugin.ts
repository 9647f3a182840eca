import type { Model, Schema } from "mongoose";
import { RestErrors } from "../errors.js";

/** The static `upsertPlugin` adds; merge it into your model's type. */
export interface UpsertStatics<TDocument> {
  /** Creates from `conditions` + `update` when nothing matches, updates the one match, throws when several match. */
  upsert(conditions: Record<string, unknown>, update: Record<string, unknown>): Promise<TDocument>;
}

/**
 * Adds the static `upsert(conditions, update)`. Unlike `updateOne(..., {upsert: true})` it runs
 * document middleware and validators (it saves a document), and it refuses to guess when several
 * documents match (API error 500, `REST_SEVERAL_MATCHES`). On create, the plain equality
 * conditions become fields of the new document; operator conditions (`{age: {$gt: 1}}`) do not.
 *
 * @example
 * schema.plugin(upsertPlugin);
 * await Setting.upsert({ userId, key: "theme" }, { value: "dark" });
 */
export function upsertPlugin(schema: Schema): void {
  schema.static(
    "upsert",
    async function upsertStatic(this: Model<unknown>, conditions: Record<string, unknown>, update: Record<string, unknown>) {
      const matches = await this.find(conditions).limit(2);
      if (matches.length > 1) throw RestErrors.SEVERAL_MATCHES({ detail: `Several ${this.modelName} documents match the upsert conditions` });
      const existing = matches[0];
      if (existing) {
        existing.set(update);
        return existing.save();
      }
      return this.create({ ...equalityConditions(conditions), ...update });
    },
  );
}

function equalityConditions(conditions: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(conditions)) {
    if (key.startsWith("$")) continue;
    if (isOperatorObject(value)) continue;
    fields[key] = value;
  }
  return fields;
}

function isOperatorObject(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Date) return false;
  return Object.keys(value).some((key) => key.startsWith("$"));
}
