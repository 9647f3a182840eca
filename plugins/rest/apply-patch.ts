import type { Document, SchemaType } from "mongoose";

type DefaultingSchemaType = SchemaType & { isRequired?: boolean; getDefault(doc: unknown, init: boolean): unknown };

/**
 * Applies a PATCH body to a loaded document — the one PATCH semantics of REST updates, synced
 * updates and admin bulk updates. The fields sent change and no other; a value sent replaces the
 * field's value whole (a nested object included: send all of it). `null` empties a field: an
 * optional one goes back to its default, or is unset when it has none (absent rather than stored
 * as null; `default: null` keeps null); a required one keeps the null for its `required`
 * validator to refuse.
 *
 * @example
 * const doc = await Todo.findById(id).orFail();
 * applyPatch(doc, { title: "Renamed", dueOn: null }); // dueOn unset, done untouched
 * await doc.save();
 */
export function applyPatch(doc: Document<unknown>, body: Readonly<Record<string, unknown>>): void {
  const changes: Record<string, unknown> = {};
  const emptied: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === null) emptied.push(key);
    else changes[key] = value;
  }
  doc.set(changes);
  for (const key of emptied) {
    const schemaType = doc.schema.path(key) as DefaultingSchemaType | undefined;
    doc.set(key, schemaType?.isRequired === true ? null : schemaType?.getDefault(doc, false));
  }
}
