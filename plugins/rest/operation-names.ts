import mongoose from "mongoose";

/** The names a model's generated operation ids are built from: `readPost` and `listPosts`. */
export interface OperationNames {
  /** One record, e.g. `Post` (in `createPost`, `readPost`, `updatePost`, `deletePost`). */
  readonly one: string;
  /** The list, e.g. `Posts` (in `listPosts`). */
  readonly many: string;
}

/**
 * The singular and plural names of a model's operations, in PascalCase. The plural comes from
 * mongoose's pluralizer (the rules that name the model's collection: `Category` → `Categories`,
 * `Person` → `People`), applied to the last word only; `singular`/`plural` override either.
 *
 * @example
 * modelOperationNames("BlogPost"); // { one: "BlogPost", many: "BlogPosts" }
 * modelOperationNames("Person", { plural: "Persons" }); // { one: "Person", many: "Persons" }
 */
export function modelOperationNames(modelName: string, override: { readonly singular?: string; readonly plural?: string } = {}): OperationNames {
  const one = pascalCase(override.singular ?? modelName);
  return { one, many: override.plural !== undefined ? pascalCase(override.plural) : pluralName(one) };
}

function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("") || "Record";
}

// The last word of a PascalCase name: `Todo` in `DocTodo`, `URL` in `ShortURL`.
const LAST_WORD = /(?:[A-Z]?[a-z0-9]+|[A-Z]+)$/;

function pluralName(name: string): string {
  const word = LAST_WORD.exec(name)?.[0] ?? name;
  const prefix = name.slice(0, name.length - word.length);
  const lower = word.toLowerCase();
  // The app's own pluralizer, so ids follow its collection names; when the app turned it off
  // (null) a plain `s` still makes list ids read as plurals.
  const pluralize = mongoose.pluralize();
  const plural = pluralize ? pluralize(lower) : `${lower}s`;
  // Keep the word's own casing where the plural only adds letters (`URL` → `URLs`).
  const cased = plural.startsWith(lower) ? word + plural.slice(lower.length) : word[0]! + plural.slice(1);
  return prefix + cased;
}
