import { Form, useNotify } from "ra-core";
import { useMemo } from "react";
import { useFormState } from "react-hook-form";
import type { AdminModel, AdminRecord } from "./api-types";
import { FieldInput } from "./field-input";
import { changedData, editableFields, editorOf, initialFormValues, type EditorKind } from "./form-values";

interface RecordFormProps {
  readonly model: AdminModel;
  readonly mode: "create" | "edit";
  readonly record?: AdminRecord;
  /** The controller's save: resolves with the server's field errors, if any. */
  readonly save: (data: Record<string, unknown>) => unknown;
  readonly saving?: boolean;
  /** Why saving is not possible (the form is then read-only). */
  readonly disabledReason?: string;
}

function ServerError() {
  const { errors } = useFormState();
  const message = (errors.root as { serverError?: { message?: string } } | undefined)?.serverError?.message;
  return message ? (
    <p role="alert" className="form-error" data-testid="form-error">
      {message}
    </p>
  ) : null;
}

/**
 * The form generated from the model's fields. It holds text as typed; on submit only the fields
 * that differ from the record are converted and sent (PATCH), so fields the caller did not touch
 * (or may not write) are never part of the request.
 */
export function RecordForm({ model, mode, record, save, saving, disabledReason }: RecordFormProps) {
  const notify = useNotify();
  const fields = useMemo(() => editableFields(model, mode), [model, mode]);
  const editors = useMemo(() => Object.fromEntries(fields.map(([name, field]) => [name, editorOf(field, record?.[name])])) as Record<string, EditorKind>, [fields, record]);
  const initial = useMemo(() => initialFormValues(model, mode, record), [model, mode, record]);
  const formRecord = useMemo(() => ({ ...initial, id: record?.id ?? "new" }), [initial, record]);
  const disabled = disabledReason !== undefined;

  const onSubmit = async (values: Record<string, unknown>) => {
    const data = changedData(model, mode, initial, values, editors);
    if (mode === "edit" && Object.keys(data).length === 0) {
      notify("Nothing has changed: there is nothing to save.", { type: "info" });
      return undefined;
    }
    return await save(data);
  };

  return (
    <Form record={formRecord} onSubmit={onSubmit} noValidate className="record-form" id={`${mode}-form`}>
      <ServerError />
      <p className="hint">
        Fields marked <span aria-hidden="true">*</span>
        <span className="visually-hidden">with a star</span> are required.
      </p>
      <fieldset disabled={disabled || saving} className="form-fields">
        <legend className="visually-hidden">{mode === "create" ? "New record" : "Fields"}</legend>
        {fields.map(([name, field]) => (
          <FieldInput key={name} name={name} field={field} editor={editors[name]!} initial={initial[name]} />
        ))}
      </fieldset>
      <div className="form-actions">
        <button type="submit" className="button-primary" disabled={disabled || saving} aria-describedby={disabled ? `${mode}-save-reason` : undefined}>
          {saving ? "Saving…" : mode === "create" ? "Create" : "Save"}
        </button>
        {disabled ? (
          <span id={`${mode}-save-reason`} className="hint">
            {disabledReason}
          </span>
        ) : null}
      </div>
    </Form>
  );
}
