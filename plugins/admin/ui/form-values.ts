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

/** The field whose length limits apply to each piece of text the editor holds: the field, or a list's element. */
function textLimited(field: AdminField, editor: EditorKind): AdminField | undefined {
  if (editor === "lines") return field.items;
  return (editor === "text" || editor === "textarea") && field.type === "string" ? field : undefined;
}

const characters = (n: number) => `${n} ${n === 1 ? "character" : "characters"}`;

/** The schema's limits of a field as its hint says them ("Up to 200 characters."); "" when it has none. */
export function limitsHint(field: AdminField, editor: EditorKind): string {
  const text = textLimited(field, editor);
  if (text && (text.minLength !== undefined || text.maxLength !== undefined)) {
    const { minLength: min, maxLength: max } = text;
    const says = min !== undefined && max !== undefined ? `${min} to ${characters(max)}` : max !== undefined ? `up to ${characters(max)}` : `at least ${characters(min!)}`;
    return editor === "lines" ? `Each line ${says}.` : `${says[0]!.toUpperCase()}${says.slice(1)}.`;
  }
  if (editor === "number") {
    const { min, max } = field;
    if (min !== undefined && max !== undefined) return `From ${min} to ${max}.`;
    if (min !== undefined) return `At least ${min}.`;
    if (max !== undefined) return `At most ${max}.`;
  }
  return "";
}

/** Why one piece of text is outside its length limits, or undefined. */
function lengthError(limits: AdminField, text: string): string | undefined {
  // Empty text is "Required" or left unset; the server judges an empty optional value itself.
  if (text === "") return undefined;
  // `length` (UTF-16 units) is what both the schema's validators and the `maxlength` attribute count.
  if (limits.maxLength !== undefined && text.length > limits.maxLength) return `Too long: up to ${characters(limits.maxLength)} (this has ${text.length})`;
  if (limits.minLength !== undefined && text.length < limits.minLength) return `Too short: at least ${characters(limits.minLength)} (this has ${text.length})`;
  return undefined;
}

/**
 * Why a converted value is outside the field's limits (`minLength`/`maxLength` of strings and of a
 * list's lines, `min`/`max` of numbers), said as the server would refuse it; undefined when within.
 */
export function limitError(field: AdminField, value: unknown, editor: EditorKind): string | undefined {
  const text = textLimited(field, editor);
  if (text && typeof value === "string") return lengthError(text, value);
  if (text && Array.isArray(value)) {
    for (const [index, line] of value.entries()) {
      const error = typeof line === "string" ? lengthError(text, line) : undefined;
      if (error) return `Line ${index + 1}: ${error[0]!.toLowerCase()}${error.slice(1)}`;
    }
  }
  if (editor === "number" && typeof value === "number") {
    if (field.min !== undefined && value < field.min) return `Too small: at least ${field.min}`;
    if (field.max !== undefined && value > field.max) return `Too large: at most ${field.max}`;
  }
  return undefined;
}

/**
 * Checks one form value (what the form's `validate` says): required, convertible, and within the
 * field's limits. A value still as it was (`initial`) is not held to the limits: it is not sent
 * (only changed fields are), so a record stored before a limit existed can still be saved.
 */
export function checkFormValue(field: AdminField, value: unknown, editor: EditorKind, initial?: unknown): string | undefined {
  if (field.required && editor !== "checkbox" && (value === "" || value === undefined)) return "Required";
  let converted: unknown;
  try {
    converted = fromFormValue(field, value, editor);
  } catch (error) {
    if (error instanceof FieldValueError) return error.message;
    throw error;
  }
  return value === initial ? undefined : limitError(field, converted, editor);
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
