import type { Model, Schema } from "mongoose";
import { RestErrors } from "../errors.js";

/** The static `findExactlyOne` adds; merge it into your model's type. */
export interface FindExactlyOneStatics<TDocument> {
  /** The one document matching `query`: 404 when none does, 500 when several do. */
  findExactlyOne(query: Record<string, unknown>, projection?: string | Record<string, unknown>): Promise<TDocument>;
}

/**
 * Adds the static `findExactlyOne(query)`: resolves the single match, throws an API error with
 * status 404 (`REST_NO_MATCH`) when nothing matches and 500 (`REST_SEVERAL_MATCHES`) when several
 * do, so "there is exactly one" is checked rather than assumed.
 *
 * @example
 * schema.plugin(findExactlyOne);
 * const user = await User.findExactlyOne({ email });
 */
export function findExactlyOne(schema: Schema): void {
  schema.static(
    "findExactlyOne",
    async function findExactlyOneStatic(this: Model<unknown>, query: Record<string, unknown>, projection?: string | Record<string, unknown>) {
      // Two are enough to know "more than one" without reading every match.
      const matches = await this.find(query, projection).limit(2);
      if (matches.length === 0) throw RestErrors.NO_MATCH({ detail: `No ${this.modelName} matches the query` });
      if (matches.length > 1) throw RestErrors.SEVERAL_MATCHES({ detail: `Several ${this.modelName} documents match the query` });
      return matches[0];
    },
  );
}
