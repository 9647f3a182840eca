import { useState, type FormEvent } from "react";
import type { AdminModel } from "./api-types";
import { editableFields, editorOf, FieldValueError, fromFormValue, limitError, limitsHint } from "./form-values";
import { fieldLabel } from "./field-label";

/** Editors simple enough to set on many records at once from one small input. */
const SIMPLE = new Set(["text", "select", "number", "checkbox", "datetime"]);

/** "Set one field to one value" on the selected records. */
export function BulkUpdateForm({ model, count, onSubmit }: { model: AdminModel; count: number; onSubmit: (data: Record<string, unknown>) => Promise<void> }) {
  const fields = editableFields(model, "edit").filter(([, field]) => SIMPLE.has(editorOf(field)));
  const [name, setName] = useState(fields[0]?.[0] ?? "");
  const [value, setValue] = useState<string | boolean>("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const field = model.fields[name];
  if (fields.length === 0 || !field) return null;
  const editor = editorOf(field);
  const hint = limitsHint(field, editor);
  const describedBy = [hint ? "bulk-value-hint" : "", error ? "bulk-value-error" : ""].filter(Boolean).join(" ") || undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let converted: unknown;
    try {
      converted = fromFormValue(field, value, editor);
    } catch (failure) {
      if (!(failure instanceof FieldValueError)) throw failure;
      setError(failure.message);
      return;
    }
    const outside = limitError(field, converted, editor);
    if (outside) {
      setError(outside);
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      await onSubmit({ [name]: converted });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="bulk-update" onSubmit={submit} aria-label="Update the selected records">
      <div className="field">
        <label htmlFor="bulk-field">Field to set</label>
        <select
          id="bulk-field"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            setValue(editorOf(model.fields[event.target.value]!) === "checkbox" ? false : "");
            setError(undefined);
          }}
        >
          {fields.map(([fieldName]) => (
            <option key={fieldName} value={fieldName}>
              {fieldLabel(fieldName)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        {editor === "checkbox" ? (
          <label className="checkbox-label">
            <input type="checkbox" checked={value === true} onChange={(event) => setValue(event.target.checked)} /> New value ({fieldLabel(name)})
          </label>
        ) : (
          <>
            <label htmlFor="bulk-value">New value</label>
            {editor === "select" ? (
              <select id="bulk-value" value={String(value)} onChange={(event) => setValue(event.target.value)}>
                <option value="">—</option>
                {(field.enum ?? []).map((option) => (
                  <option key={String(option)} value={String(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id="bulk-value"
                type={editor === "datetime" ? "datetime-local" : "text"}
                inputMode={editor === "number" ? "decimal" : undefined}
                value={String(value)}
                minLength={field.type === "string" ? field.minLength : undefined}
                maxLength={field.type === "string" ? field.maxLength : undefined}
                aria-invalid={error ? true : undefined}
                aria-describedby={describedBy}
                onChange={(event) => setValue(event.target.value)}
              />
            )}
          </>
        )}
        {hint ? (
          <p id="bulk-value-hint" className="hint">
            {hint}
          </p>
        ) : null}
        {error ? (
          <p id="bulk-value-error" className="field-error">
            {error}
          </p>
        ) : null}
      </div>
      <button type="submit" className="button-secondary" disabled={busy}>
        Set on {count} {count === 1 ? "record" : "records"}
      </button>
    </form>
  );
}
