import type { Model, Schema } from "mongoose";
import { RestErrors } from "../errors.js";

/** The static `findOneOrNone` adds; merge it into your model's type. */
export interface FindOneOrNoneStatics<TDocument> {
  /** The one document matching `query`, null when none does; 500 when several do. */
  findOneOrNone(query: Record<string, unknown>, projection?: string | Record<string, unknown>): Promise<TDocument | null>;
}

/**
 * Adds the static `findOneOrNone(query)`: the single match or null, and an API error with status
 * 500 (`REST_SEVERAL_MATCHES`) when several match — `findOne` would silently pick one.
 *
 * @example
 * schema.plugin(findOneOrNone);
 * const existing = await Subscription.findOneOrNone({ userId, plan });
 */
export function findOneOrNone(schema: Schema): void {
  schema.static(
    "findOneOrNone",
    async function findOneOrNoneStatic(this: Model<unknown>, query: Record<string, unknown>, projection?: string | Record<string, unknown>) {
      const matches = await this.find(query, projection).limit(2);
      if (matches.length > 1) throw RestErrors.SEVERAL_MATCHES({ detail: `Several ${this.modelName} documents match the query` });
      return matches[0] ?? null;
    },
  );
}
