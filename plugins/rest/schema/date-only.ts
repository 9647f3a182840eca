import mongoose from "mongoose";

const SchemaDate = mongoose.Schema.Types.Date;

/** Truncates a date to midnight UTC of its UTC calendar day. */
export function toUtcMidnight(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/**
 * A date without a time of day: every value is stored as midnight UTC, whether it is set
 * (`doc.dueOn = "2024-05-01T17:30:00Z"` → `2024-05-01T00:00:00Z`), cast in a query
 * (`$gt`, `$gte`, `$lt`, `$lte`, `$eq`, `$ne`, `$in`, `$nin`) or read back from the database.
 * An invalid date is a mongoose `CastError` (400 through the error handler). Register it with
 * `registerDateOnlyType()` before declaring models that use it.
 *
 * @example
 * registerDateOnlyType();
 * const schema = new Schema({ dueOn: { type: DateOnly, description: "Day the todo is due" } });
 */
export class DateOnly extends SchemaDate {
  constructor(path: string, options?: mongoose.AnyObject) {
    super(path, options);
    // Mongoose names the type after `instance` in errors and introspection.
    (this as { instance: string }).instance = "DateOnly";
  }

  // Date's query handlers ($gt, $gte, $lt, $lte, $in...) all call `cast`, so overriding it is
  // enough for set, read (mongoose casts while hydrating) and query casting alike.
  override cast(value: unknown, doc?: mongoose.Document, init?: boolean, prev?: unknown, options?: unknown): unknown {
    const date = super.cast(value, doc, init, prev, options) as Date | null | undefined;
    return date instanceof Date ? toUtcMidnight(date) : date;
  }
}

// Mongoose reads the static `schemaName` when it resolves `type: "DateOnly"`; the base class
// types it as the literal "Date", hence the definition outside the class body.
Object.defineProperty(DateOnly, "schemaName", { value: "DateOnly" });

/**
 * Registers `DateOnly` on mongoose's schema type registry, so schemas can say `type: DateOnly`
 * or `type: "DateOnly"`. Call it once at start-up, before models load; calling it again is a
 * no-op.
 *
 * @example
 * import { registerDateOnlyType } from "svc";
 * registerDateOnlyType();
 * // then import your models
 */
export function registerDateOnlyType(): void {
  const types = mongoose.Schema.Types as unknown as Record<string, unknown>;
  if (types.DateOnly === DateOnly) return;
  types.DateOnly = DateOnly;
}

/** True when `schemaType` is a `DateOnly` path. */
export function isDateOnlyPath(schemaType: mongoose.SchemaType): boolean {
  return schemaType instanceof DateOnly;
}
