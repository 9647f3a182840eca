import type { AdminField } from "./api-types";

/** List cells longer than this are cut, the whole text in a tooltip. */
const CELL_LENGTH = 60;

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDate(value: unknown): string {
  const date = new Date(value as string);
  return Number.isNaN(date.getTime()) ? String(value) : dateFormat.format(date);
}

function plain(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return value.toLocaleString();
  return JSON.stringify(value);
}

/**
 * A value shown by its field type: booleans as ✓/— with words for screen readers, dates in the
 * reader's locale, arrays of simple values joined, objects as JSON. In a list cell (`compact`),
 * long text is cut and the full text is in `title`. Always text, never HTML.
 */
export function FieldValue({ field, value, compact = false }: { field?: AdminField; value: unknown; compact?: boolean }) {
  if (value === undefined || value === null || value === "") {
    return (
      <span className="empty">
        <span aria-hidden="true">—</span>
        <span className="visually-hidden">empty</span>
      </span>
    );
  }
  if (field?.type === "boolean" || typeof value === "boolean") {
    return value === true ? (
      <span className="bool bool-yes">
        <span aria-hidden="true">✓</span>
        <span className="visually-hidden">yes</span>
      </span>
    ) : (
      <span className="bool bool-no">
        <span aria-hidden="true">—</span>
        <span className="visually-hidden">no</span>
      </span>
    );
  }
  if (field?.type === "date") {
    return <time dateTime={String(value)}>{formatDate(value)}</time>;
  }
  const simpleArray = Array.isArray(value) && value.every((item) => item === null || typeof item !== "object");
  if (!compact && !simpleArray && typeof value === "object") {
    return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
  }
  const text = simpleArray ? (value as unknown[]).map(plain).join(", ") : plain(value);
  if (compact && text.length > CELL_LENGTH) {
    return <span title={text}>{`${text.slice(0, CELL_LENGTH - 1)}…`}</span>;
  }
  return <span className={field?.type === "objectid" ? "mono" : undefined}>{text}</span>;
}

/** A short name for a record: its title, name or email when it has one, else its id. */
export function recordLabel(record: Readonly<Record<string, unknown>> | undefined): string {
  if (!record) return "";
  for (const key of ["title", "name", "displayName", "label", "email", "key", "subject"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim() !== "") return value.length > 80 ? `${value.slice(0, 79)}…` : value;
  }
  return String(record._id ?? record.id ?? "");
}
