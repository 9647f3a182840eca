import type { Schema } from "mongoose";

const SOFT_DELETE = Symbol.for("svc.softDelete");

/** The field `isDeletedPlugin` adds. */
export interface IsDeletedFields {
  deleted: boolean;
}

const READ_HOOKS = ["find", "findOne", "countDocuments"] as const;

/**
 * Adds `deleted: boolean` (default `defaultValue`, false unless given) and hides deleted
 * documents from `find`, `findOne` (so `findById`) and `countDocuments` unless the query names
 * `deleted` at its top level (`Todo.find({ deleted: true })` finds the deleted ones).
 * Generated DELETE routes on such a model soft-delete (set `deleted: true`) instead of removing.
 *
 * @example
 * schema.plugin(isDeletedPlugin);           // deleted defaults to false
 * schema.plugin(isDeletedPlugin, true);     // new records start deleted (e.g. drafts)
 */
export function isDeletedPlugin(schema: Schema, defaultValue: boolean | Record<string, unknown> = false): void {
  // schema.plugin(fn, options) passes options as the second argument; accept `{ default }` too.
  const initial = typeof defaultValue === "boolean" ? defaultValue : defaultValue.default === true;
  schema.add({
    deleted: {
      type: Boolean,
      default: initial,
      index: true,
      description: "Whether the record is soft-deleted; deleted records are hidden from reads",
    },
  });
  (schema as unknown as Record<symbol, boolean>)[SOFT_DELETE] = true;

  for (const hook of READ_HOOKS) {
    schema.pre(hook, function excludeDeleted() {
      const filter = this.getFilter();
      if (!Object.prototype.hasOwnProperty.call(filter, "deleted")) this.where({ deleted: { $ne: true } });
    });
  }
}

/** True when the schema uses `isDeletedPlugin` (so DELETE is a soft delete). */
export function usesSoftDelete(schema: Schema): boolean {
  return (schema as unknown as Record<symbol, boolean | undefined>)[SOFT_DELETE] === true;
}
