import { isIdentifier, kebabCase, label, pascalCase } from "../naming.js";
import { renderFiles } from "../tool-result.js";

export const FORM_FIELD_TYPES = ["text", "number", "boolean", "date", "select"] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export interface FormFieldSpec {
  name: string;
  type: FormFieldType;
  required?: boolean;
  options?: string[];
}

export interface GenerateFormFieldsArgs {
  modelName: string;
  fields: FormFieldSpec[];
}

const VALUE_TYPES: Record<FormFieldType, string> = { text: "string", number: "number", boolean: "boolean", date: "string", select: "string" };

/**
 * `svc_generate_form_fields`: a controlled React component with one labelled input per field,
 * typed by a `<Model>FormValues` interface; required fields carry `required`, selects their options.
 *
 * @example
 * generateFormFields({ modelName: "Book", fields: [{ name: "title", type: "text", required: true }] });
 */
export function generateFormFields(args: GenerateFormFieldsArgs): { text: string } | { errors: string[] } {
  const errors: string[] = [];
  const model = pascalCase(args.modelName);
  if (!model) errors.push(`modelName "${args.modelName}" is not a model name`);
  if (args.fields.length === 0) errors.push("fields: give at least one field");
  const seen = new Set<string>();
  for (const field of args.fields) {
    if (!isIdentifier(field.name)) errors.push(`field "${field.name}" is not a valid identifier`);
    if (seen.has(field.name)) errors.push(`field "${field.name}" is listed twice`);
    seen.add(field.name);
    if (field.type === "select" && !field.options?.length) errors.push(`field "${field.name}": a select needs options`);
    if (field.type !== "select" && field.options) errors.push(`field "${field.name}": options only apply to select fields`);
  }
  if (errors.length) return { errors };
  return { text: renderFiles([{ path: formFieldsFile(model), language: "tsx", content: formFieldsSource(model, args.fields) }], `Use it inside a <form>: \`<${model}FormFields value={values} onChange={setValues} />\`.`) };
}

/** Where the generated fields component lives. */
export const formFieldsFile = (model: string): string => `src/components/${kebabCase(model)}-form-fields.tsx`;

/** The component's source (also embedded by `svc_generate_screen` for form screens). */
export function formFieldsSource(model: string, fields: readonly FormFieldSpec[]): string {
  const values = fields.map((field) => `  ${field.name}${field.required ? "" : "?"}: ${VALUE_TYPES[field.type]};`);
  const inputs = fields.map((field) => fieldInput(field));
  return `// The inputs of a ${model} form: controlled, one per field, labelled for screen readers.
/** The values the ${model} form edits (dates as YYYY-MM-DD). */
export interface ${model}FormValues {
${values.join("\n")}
}

export interface ${model}FormFieldsProps {
  value: Partial<${model}FormValues>;
  onChange: (next: Partial<${model}FormValues>) => void;
  disabled?: boolean;
}

/** The ${model} inputs; the parent owns the state and the submit. */
export function ${model}FormFields({ value, onChange, disabled }: ${model}FormFieldsProps) {
  const set = <K extends keyof ${model}FormValues>(key: K, next: ${model}FormValues[K] | undefined) => onChange({ ...value, [key]: next });
  return (
    <fieldset disabled={disabled}>
${inputs.join("\n")}
    </fieldset>
  );
}
`;
}

function fieldInput(field: FormFieldSpec): string {
  const id = `${kebabCase(field.name)}-input`;
  const required = field.required ? " required" : "";
  const text = label(field.name);
  switch (field.type) {
    case "boolean":
      return `      <label htmlFor="${id}">
        <input id="${id}" type="checkbox" checked={value.${field.name} ?? false} onChange={(e) => set("${field.name}", e.target.checked)} />
        ${text}
      </label>`;
    case "select":
      return `      <label htmlFor="${id}">${text}</label>
      <select id="${id}"${required} value={value.${field.name} ?? ""} onChange={(e) => set("${field.name}", e.target.value || undefined)}>
        <option value="">—</option>
${field.options!.map((option) => `        <option value=${JSON.stringify(option)}>${option.replace(/[<>{}]/g, "")}</option>`).join("\n")}
      </select>`;
    case "number":
      return `      <label htmlFor="${id}">${text}</label>
      <input id="${id}" type="number"${required} value={value.${field.name} ?? ""} onChange={(e) => set("${field.name}", e.target.value === "" ? undefined : Number(e.target.value))} />`;
    case "date":
      return `      <label htmlFor="${id}">${text}</label>
      <input id="${id}" type="date"${required} value={value.${field.name} ?? ""} onChange={(e) => set("${field.name}", e.target.value || undefined)} />`;
    case "text":
      return `      <label htmlFor="${id}">${text}</label>
      <input id="${id}" type="text"${required} value={value.${field.name} ?? ""} onChange={(e) => set("${field.name}", e.target.value || undefined)} />`;
  }
}
