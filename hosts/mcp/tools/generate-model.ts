import { camelCase, isIdentifier, kebabCase, label, pascalCase } from "../naming.js";
import { renderFiles } from "../tool-result.js";

/** The field types `svc_generate_model` knows (SPEC §4.7). */
export const MODEL_FIELD_TYPES = ["String", "Number", "Boolean", "Date", "ObjectId"] as const;
export type ModelFieldType = (typeof MODEL_FIELD_TYPES)[number];

export interface ModelFieldSpec {
  name: string;
  type: ModelFieldType;
  required?: boolean;
  /** The default as text: `"draft"`, `"0"`, `"true"`, `"now"` (dates) or an ISO date. */
  default?: string;
  ref?: string;
  description?: string;
}

export interface GenerateModelArgs {
  name: string;
  fields: ModelFieldSpec[];
  hasOwner: boolean;
  softDelete: boolean;
  timestamps: boolean;
}

const TS_TYPES: Record<ModelFieldType, string> = {
  String: "string",
  Number: "number",
  Boolean: "boolean",
  Date: "Date",
  ObjectId: "mongoose.Types.ObjectId",
};

const SCHEMA_TYPES: Record<ModelFieldType, string> = {
  String: "String",
  Number: "Number",
  Boolean: "Boolean",
  Date: "Date",
  ObjectId: "mongoose.Schema.Types.ObjectId",
};

// Paths the schema plugins or mongoose own: a generated field must not shadow them.
const RESERVED = new Set(["_id", "id", "__v", "created", "updated", "deleted", "ownerId"]);

/** Where a generated model lives in the project (the route generator imports it from here). */
export const modelFile = (name: string): string => `src/models/${kebabCase(name)}.ts`;

/**
 * `svc_generate_model`: a mongoose model in svc's house style — every field described, a strict
 * (`"throw"`) schema with virtuals in `toJSON`/`toObject`, svc's schema plugins for timestamps and
 * soft delete, and an indexed `ownerId` when records belong to users. Returns the file as text,
 * or the list of problems with the arguments.
 *
 * @example
 * generateModel({ name: "Book", fields: [{ name: "title", type: "String", required: true }], hasOwner: true, softDelete: false, timestamps: true });
 */
export function generateModel(args: GenerateModelArgs): { text: string } | { errors: string[] } {
  const errors: string[] = [];
  const model = pascalCase(args.name);
  if (!model || !/^[A-Za-z]/.test(model)) errors.push(`name "${args.name}" does not make a model name (use e.g. "Book" or "book-loan")`);
  const seen = new Set<string>();
  const lines: string[] = [];
  const fieldsOfInterface: string[] = [];
  const generatedDescriptions: string[] = [];
  for (const field of args.fields) {
    if (!isIdentifier(field.name)) errors.push(`field "${field.name}" is not a valid identifier`);
    else if (RESERVED.has(field.name)) errors.push(`field "${field.name}" is managed by svc (${[...RESERVED].join(", ")} are reserved)`);
    else if (seen.has(field.name)) errors.push(`field "${field.name}" is listed twice`);
    seen.add(field.name);
    if (field.ref !== undefined && field.type !== "ObjectId") errors.push(`field "${field.name}": ref needs type ObjectId`);
    if (field.ref !== undefined && !/^[A-Z][A-Za-z0-9]*$/.test(field.ref)) errors.push(`field "${field.name}": ref "${field.ref}" is not a model name`);
    const defaultValue = field.default === undefined ? undefined : defaultExpression(field, errors);
    const description = field.description?.trim() || `${label(field.name)} of the ${words(model)}`;
    if (!field.description?.trim()) generatedDescriptions.push(field.name);
    const parts = [`type: ${SCHEMA_TYPES[field.type]}`];
    if (field.required) parts.push("required: true");
    if (field.type === "String") parts.push("trim: true");
    if (defaultValue !== undefined) parts.push(`default: ${defaultValue}`);
    if (field.ref) parts.push(`ref: ${JSON.stringify(field.ref)}`, "index: true");
    parts.push(`description: ${JSON.stringify(description)}`);
    lines.push(`    ${field.name}: { ${parts.join(", ")} },`);
    const optional = !field.required && defaultValue === undefined;
    fieldsOfInterface.push(`  /** ${description.replaceAll("*/", "* /")} */\n  ${field.name}${optional ? "?" : ""}: ${TS_TYPES[field.type]};`);
  }
  if (args.fields.length === 0 && !args.hasOwner) errors.push("a model needs at least one field");
  if (errors.length) return { errors };

  if (args.hasOwner) {
    // Indexed: OwnerQueryFilter adds `ownerId` to every list and read of the collection.
    lines.push(`    ownerId: { type: mongoose.Schema.Types.ObjectId, ref: "User", index: true, description: "The user who owns the record (set from the signed-in user on create)" },`);
    fieldsOfInterface.push(`  /** The user who owns the record. */\n  ownerId?: mongoose.Types.ObjectId;`);
  }
  const plugins = schemaPlugins(args);
  const schemaName = `${camelCase(model)}Schema`;
  const content = `// The ${model} model: ${args.fields.length} field${args.fields.length === 1 ? "" : "s"}${args.hasOwner ? ", owned by a user" : ""}${args.timestamps ? ", created/updated timestamps" : ""}${args.softDelete ? ", soft delete" : ""}.
import mongoose from "mongoose";
import { ${plugins.imports.join(", ")} } from "svc";

/** A ${words(model)} as stored. */
export interface ${model}Fields {
${fieldsOfInterface.join("\n")}
}

const ${schemaName} = new mongoose.Schema<${model}Fields>(
  {
${lines.join("\n")}
  },
  // "throw": a write naming a field the schema does not declare fails instead of being dropped.
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
${plugins.calls.map((plugin) => `${schemaName}.plugin(${plugin});`).join("\n")}

export const ${model} = mongoose.model<${model}Fields>(${JSON.stringify(model)}, ${schemaName});
`;
  const notes = [
    `Next: serve it with \`svc_generate_route\` (modelName "${model}"), then \`app.register(...)\` the router.`,
    ...(generatedDescriptions.length ? [`Descriptions were written for ${generatedDescriptions.join(", ")}: replace them with what the fields mean (they flow into /openapi.json and the admin).`] : []),
  ];
  return { text: renderFiles([{ path: modelFile(model), language: "ts", content }], notes.join("\n")) };
}

function words(model: string): string {
  return label(model).toLowerCase();
}

function schemaPlugins(args: GenerateModelArgs): { imports: string[]; calls: string[] } {
  // defaultPlugins = createdUpdatedPlugin + isDeletedPlugin + findExactlyOne + findOneOrNone.
  if (args.timestamps && args.softDelete) return { imports: ["defaultPlugins"], calls: ["defaultPlugins"] };
  const calls = [...(args.timestamps ? ["createdUpdatedPlugin"] : []), ...(args.softDelete ? ["isDeletedPlugin"] : []), "findExactlyOne", "findOneOrNone"];
  return { imports: [...calls].sort(), calls };
}

function defaultExpression(field: ModelFieldSpec, errors: string[]): string | undefined {
  const raw = field.default!;
  switch (field.type) {
    case "String":
      return JSON.stringify(raw);
    case "Number": {
      const value = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(value)) errors.push(`field "${field.name}": default "${raw}" is not a number`);
      return String(value);
    }
    case "Boolean":
      if (raw !== "true" && raw !== "false") errors.push(`field "${field.name}": default "${raw}" is not true or false`);
      return raw;
    case "Date":
      if (raw === "now") return "Date.now";
      if (Number.isNaN(Date.parse(raw))) errors.push(`field "${field.name}": default "${raw}" is neither "now" nor a date`);
      return `() => new Date(${JSON.stringify(raw)})`;
    case "ObjectId":
      errors.push(`field "${field.name}": an ObjectId field cannot have a default`);
      return undefined;
  }
}
