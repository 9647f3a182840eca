import { useInput, ValidationError } from "ra-core";
import { useCallback } from "react";
import type { AdminField } from "./api-types";
import { checkFormValue, limitsHint, type EditorKind } from "./form-values";
import { fieldLabel } from "./field-label";

interface FieldInputProps {
  readonly name: string;
  readonly field: AdminField;
  readonly editor: EditorKind;
  /** The form's value before any change: only a changed value is held to the field's limits. */
  readonly initial?: unknown;
  readonly disabled?: boolean;
}

// The form keeps text as typed; conversion (and its errors) happens in validate and on save.
const keep = (value: unknown) => value;

/** One labelled input of the generated form, with its description and error tied to it for screen readers. */
export function FieldInput({ name, field, editor, initial, disabled }: FieldInputProps) {
  // Stable: ra-core re-registers the input (and re-renders the form) when `validate` changes.
  const validate = useCallback((value: unknown) => checkFormValue(field, value, editor, initial), [field, editor, initial]);
  const { id, field: input, fieldState } = useInput({ source: name, format: keep, parse: keep, validate, disabled });
  const error = fieldState.error?.message;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const description = field.description && !/[.!?]$/.test(field.description) ? `${field.description}.` : field.description;
  const hint = [description, editor === "lines" ? "One per line." : "", editor === "json" ? "JSON." : "", limitsHint(field, editor)].filter(Boolean).join(" ");
  const describedBy = [hint ? hintId : "", error ? errorId : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name: input.name,
    disabled,
    onBlur: input.onBlur,
    ref: input.ref,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    "aria-required": field.required && editor !== "checkbox" ? true : undefined,
  } as const;
  const text = typeof input.value === "string" ? input.value : "";
  const onText = (event: { target: { value: string } }) => input.onChange(event.target.value);
  // The browser stops typing at the maximum; the minimum, and a value that came in longer, are checked on save.
  const lengths = field.type === "string" ? { minLength: field.minLength, maxLength: field.maxLength } : {};

  let control;
  switch (editor) {
    case "checkbox":
      control = <input {...common} type="checkbox" checked={input.value === true} onChange={(event) => input.onChange(event.target.checked)} />;
      break;
    case "select":
      control = (
        <select {...common} value={text} onChange={onText}>
          {!field.required || text === "" ? <option value="">—</option> : null}
          {(field.enum ?? []).map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      );
      break;
    case "number":
      control = <input {...common} type="text" inputMode="decimal" value={text} onChange={onText} />;
      break;
    case "datetime":
      control = <input {...common} type="datetime-local" step={1} value={text} onChange={onText} />;
      break;
    case "textarea":
      control = <textarea {...common} {...lengths} rows={5} value={text} onChange={onText} />;
      break;
    case "lines":
      control = <textarea {...common} rows={4} value={text} onChange={onText} />;
      break;
    case "json":
      control = <textarea {...common} rows={6} className="mono" spellCheck={false} value={text} onChange={onText} />;
      break;
    default:
      control = <input {...common} {...lengths} type="text" value={text} onChange={onText} spellCheck={field.type === "objectid" ? false : undefined} />;
  }

  return (
    <div className={`field field-${editor}${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>
        {fieldLabel(name)}
        {field.required && editor !== "checkbox" ? (
          <span className="required" aria-hidden="true">
            {" "}
            *
          </span>
        ) : null}
      </label>
      {control}
      {hint ? (
        <p id={hintId} className="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {/* The form's own checks come wrapped by ra-core (for translation); the server's are plain. */}
          <ValidationError error={error} />
        </p>
      ) : null}
    </div>
  );
}
