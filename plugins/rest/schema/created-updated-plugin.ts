import type { Schema } from "mongoose";

/** The fields `createdUpdatedPlugin` adds. */
export interface CreatedUpdatedFields {
  created?: Date;
  updated?: Date;
}

/**
 * Set on a document to save it once without touching `created`/`updated` (e.g. a data migration
 * that must keep the original timestamps). The flag resets itself after that save.
 */
export interface CreatedUpdatedDocument {
  disableCreatedUpdatedPlugin?: boolean;
}

const UPDATE_HOOKS = ["findOneAndUpdate", "updateOne", "updateMany"] as const;

/**
 * Adds `created` (set on the first save) and `updated` (set on every save, and on
 * `findOneAndUpdate`, `updateOne` and `updateMany`, which bypass save middleware). Setting
 * `doc.disableCreatedUpdatedPlugin = true` skips it for one save.
 *
 * @example
 * schema.plugin(createdUpdatedPlugin);
 * const todo = await Todo.create({ title: "a" }); // todo.created === todo.updated
 */
export function createdUpdatedPlugin(schema: Schema): void {
  schema.add({
    created: { type: Date, index: true, description: "When the record was created (set by the server)" },
    updated: { type: Date, index: true, description: "When the record was last changed (set by the server)" },
  });

  schema.pre("save", function stampCreatedUpdated() {
    const doc = this as typeof this & CreatedUpdatedDocument;
    if (doc.disableCreatedUpdatedPlugin) {
      doc.disableCreatedUpdatedPlugin = false;
      return;
    }
    const now = new Date();
    if (doc.isNew && doc.get("created") == null) doc.set("created", now);
    doc.set("updated", now);
  });

  for (const hook of UPDATE_HOOKS) {
    schema.pre(hook, function stampUpdated() {
      const update = this.getUpdate();
      // Aggregation-pipeline updates have no $set to merge into; they manage `updated` themselves.
      if (Array.isArray(update)) return;
      const fields = (update ?? {}) as Record<string, unknown>;
      const explicit = (fields.$set as Record<string, unknown> | undefined)?.updated ?? fields.updated;
      if (explicit === undefined) this.set("updated", new Date());
    });
  }
}
