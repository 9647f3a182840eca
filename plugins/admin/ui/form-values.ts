import type { AdminField, AdminModel, AdminRecord } from "./api-types";

/**
 * How a field is edited. The form holds text for everything but booleans, so that what the
 * user typed is kept as typed (an unfinished number, invalid JSON) and converted only on save.
 */
export type EditorKind = "text" | "textarea" | "select" | "number" | "checkbox" | "datetime" | "lines" | "json";

/** Strings longer than this are edited in a textarea; shorter ones in one line. */
const LONG_TEXT = 80;

/** Fields that are never edited: the key, and what the API adds to records. */
const NOT_EDITABLE = new Set(["_id", "id", "__v", "_adminCapabilities"]);

export function isStringArray(field: AdminField): boolean {
  return field.type === "array" && (field.items === undefined || field.items.type === "string" || field.items.type === "objectid") && !field.items?.enum;
}

export function editorOf(field: AdminField, value?: unknown): EditorKind {
  if (field.enum && field.enum.length > 0 && field.type !== "array") return "select";
  switch (field.type) {
    case "boolean":
      return "checkbox";
    case "number":
      return "number";
    case "date":
      return "datetime";
    case "objectid":
      return "text";
    case "string":
      return typeof value === "string" && (value.length > LONG_TEXT || value.includes("\n")) ? "textarea" : "text";
    case "array":
      return isStringArray(field) ? "lines" : "json";
    default:
      return "json";
  }
}

/** The fields the form shows, in the config's order: never read-only ones (the server would refuse them). */
export function editableFields(model: AdminModel, mode: "create" | "edit"): [string, AdminField][] {
  return Object.entries(model.fields).filter(([name, field]) => {
    if (field.readOnly) return false;
    // A client-minted key (synced models) is typed in on create; otherwise the server makes it.
    if (name === "_id") return mode === "create";
    return !NOT_EDITABLE.has(name);
  });
}

const pad = (n: number) => String(n).padStart(2, "0");

/** An ISO date as `<input type="datetime-local">` wants it: local time, to the second. */
export function toLocalDateTime(value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  const date = new Date(value as string);
  if (Number.isNaN(date.getTime())) return "";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The form's value of one field of a record. */
export function toFormValue(field: AdminField, value: unknown, editor: EditorKind): unknown {
  switch (editor) {
    case "checkbox":
      return value === true;
    case "datetime":
      return toLocalDateTime(value);
    case "lines":
      return Array.isArray(value) ? value.map(String).join("\n") : "";
    case "json":
      return value === undefined || value === null ? "" : JSON.stringify(value, null, 2);
    case "number":
      return typeof value === "number" ? String(value) : value === undefined || value === null ? "" : String(value);
    default:
      return value === undefined || value === null ? "" : String(value);
  }
}

/** The form's initial values for a record (or for a new one, from the fields' defaults). */
export function initialFormValues(model: AdminModel, mode: "create" | "edit", record?: AdminRecord): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, field] of editableFields(model, mode)) {
    const value = record ? record[name] : field.default;
    values[name] = toFormValue(field, value, editorOf(field, value));
  }
  return values;
}

/** A value the user typed that cannot be sent, and why. */
export class FieldValueError extends Error {}

/** Turns a form value back into the API's value; `undefined` means "leave unset". */
export function fromFormValue(field: AdminField, value: unknown, editor: EditorKind): unknown {
  const text = typeof value === "string" ? value : "";
  switch (editor) {
    case "checkbox":
      return value === true;
    case "number": {
      if (text.trim() === "") return null;
      const number = Number(text);
      if (!Number.isFinite(number)) throw new FieldValueError("Enter a number");
      return number;
    }
    case "datetime": {
      if (text === "") return null;
      const date = new Date(text);
      if (Number.isNaN(date.getTime())) throw new FieldValueError("Enter a date and time");
      return date.toISOString();
    }
    case "lines":
      return text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "");
    case "json": {
      if (text.trim() === "") return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new FieldValueError("Not valid JSON");
      }
    }
    case "select":
      if (text === "") return null;
      // Enums of numbers come back as text from the select.
      return field.enum?.find((option) => String(option) === text) ?? text;
    default:
      if (text === "" && field.type === "objectid") return null;
      return text;
  }
}

/** Checks one form value (what the form's `validate` says): required, and convertible. */
export function checkFormValue(field: AdminField, value: unknown, editor: EditorKind): string | undefined {
  if (field.required && editor !== "checkbox" && (value === "" || value === undefined)) return "Required";
  try {
    fromFormValue(field, value, editor);
  } catch (error) {
    if (error instanceof FieldValueError) return error.message;
    throw error;
  }
  return undefined;
}

/**
 * What to send: only the fields whose form value differs from the initial one, converted. On
 * create, empty optional fields are left out (the server applies its defaults).
 */
export function changedData(model: AdminModel, mode: "create" | "edit", initial: Record<string, unknown>, values: Record<string, unknown>, editors: Record<string, EditorKind>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, field] of editableFields(model, mode)) {
    const editor = editors[name] ?? editorOf(field);
    if (values[name] === initial[name] && mode === "edit") continue;
    const value = fromFormValue(field, values[name], editor);
    if (mode === "create" && (value === null || value === "" || (Array.isArray(value) && value.length === 0))) continue;
    data[name] = value;
  }
  return data;
}
