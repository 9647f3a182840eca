import type { Schema } from "mongoose";
import { createdUpdatedPlugin } from "./created-updated-plugin.js";
import { findExactlyOne } from "./find-exactly-one.js";
import { findOneOrNone } from "./find-one-or-none.js";
import { isDeletedPlugin } from "./is-deleted-plugin.js";

/**
 * The default bundle: `createdUpdatedPlugin`, `isDeletedPlugin` (deleted defaults to false),
 * `findExactlyOne` and `findOneOrNone`.
 *
 * @example
 * const schema = new Schema({ title: { type: String, description: "What to do" } }, { strict: "throw" });
 * schema.plugin(defaultPlugins);
 */
export function defaultPlugins(schema: Schema): void {
  schema.plugin(createdUpdatedPlugin);
  schema.plugin(isDeletedPlugin);
  schema.plugin(findExactlyOne);
  schema.plugin(findOneOrNone);
}
