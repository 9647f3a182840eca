import { findCollections, resolveRef, type FoundCollection, type OpenApiDocument } from "./find-collections.js";
import { schemaToType, type JsonSchema } from "./schema-to-type.js";

/** Options of `generateSyncHooks`. */
export interface GenerateSyncHooksOptions {
  /** Collections to generate (required when no list operation carries `x-svc-sync`). */
  readonly collections?: readonly string[];
  /** Where the generated file imports the React bindings from; default `svc/sync/react`. */
  readonly importFrom?: string;
  /** Named in the generated file's header (the `--schema` URL or file). */
  readonly source?: string;
}

/** Fields of stored documents that are the server's bookkeeping, not the entity's. */
const BOOKKEEPING = new Set(["_id", "__v", "_syncSeq", "_syncStream"]);

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("")
    .replace(/^(\d)/, "_$1");

const singular = (word: string) => (word.endsWith("ies") ? `${word.slice(0, -3)}y` : word.endsWith("ses") ? word.slice(0, -2) : word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word);

/**
 * Names the generated module declares or imports itself, and the global types its declarations use:
 * an entity or component named so (a `records` collection is `Record`) would clash or shadow them.
 */
const OWN_NAMES = ["SYNC_COLLECTIONS", "SyncCollection", "CollectionHooks", "createCollectionHooks", "Partial", "Omit", "Record", "Array"];

/** The hooks constant of an entity's base name: `Todo` → `todoHooks`. */
const hooksName = (base: string) => `${base[0]!.toLowerCase()}${base.slice(1)}Hooks`;

/** Every name a collection's block declares: two entities whose names overlap (`Todo` and `TodoList` both want `useTodoList`) must not both take them. */
const blockNames = (base: string) => [base, `${base}Create`, `${base}Update`, hooksName(base), `use${base}List`, `use${base}`, `useCreate${base}`, `useUpdate${base}`, `useDelete${base}`];

const componentName = (ref: string) => decodeURIComponent(/^#\/components\/schemas\/(.+)$/.exec(ref)?.[1] ?? "");

/** The entity as the local store holds it: `id` instead of `_id`, without the server's bookkeeping. */
function entitySchema(schema: JsonSchema | undefined): JsonSchema {
  const properties = Object.fromEntries(Object.entries(schema?.properties ?? {}).filter(([name]) => !BOOKKEEPING.has(name)));
  return {
    type: "object",
    properties: { id: { type: "string", description: "The entity's id (a UUID minted by the client that created it)" }, ...properties },
    required: ["id", ...(schema?.required ?? []).filter((name) => !BOOKKEEPING.has(name) && name in properties)],
  };
}

/** A create or patch schema without the server's bookkeeping: a sync mutation names its id apart and may not write `_id`. */
function writableSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([name]) => !BOOKKEEPING.has(name)));
  const required = (schema.required ?? []).filter((name) => !BOOKKEEPING.has(name));
  return { ...schema, properties, ...(schema.required ? { required } : {}) };
}

/**
 * The source of a TypeScript module with typed hooks for the synced collections of an OpenAPI
 * document (what `svc-syncdb-codegen` writes): entity, create and update types from the list,
 * create and patch schemas, `createCollectionHooks` per collection and `SYNC_COLLECTIONS`.
 *
 * @example
 * const source = generateSyncHooks(await (await fetch("http://localhost:3000/openapi.json")).json(), {});
 * await writeFile("src/sync-hooks.ts", source);
 */
export function generateSyncHooks(document: OpenApiDocument, options: GenerateSyncHooksOptions = {}): string {
  const found = findCollections(document, options.collections);
  const baseNames = new Map<FoundCollection, string>();
  // One namespace for types and values (simpler than two, and the output reads better for it).
  const used = new Set<string>(OWN_NAMES);
  const claim = (wanted: string, names: (name: string) => readonly string[]) => {
    let name = wanted;
    while (names(name).some((taken) => used.has(taken))) name = `${name}_`;
    for (const taken of names(name)) used.add(taken);
    return name;
  };
  for (const entry of found) {
    baseNames.set(entry, claim(pascal(entry.item.$ref ? componentName(entry.item.$ref) : singular(entry.collection)) || "Entity", blockNames));
  }
  // Components that the entity, create and update types point to are written out too, once each.
  const components = new Map<string, string>();
  const pending: string[] = [];
  const nameOf = (ref: string) => {
    const component = componentName(ref);
    if (!component) return "unknown";
    let name = components.get(component);
    if (!name) {
      // `todo-item` and `TodoItem` are both `TodoItemSchema` unless the second gives way.
      name = claim(`${pascal(component)}Schema`, (candidate) => [candidate]);
      components.set(component, name);
      pending.push(component);
    }
    return name;
  };
  const blocks: string[] = [];
  for (const entry of found) {
    const base = baseNames.get(entry)!;
    const entity = entitySchema(resolveRef(document, entry.item));
    const create = entry.create ? writableSchema(resolveRef(document, entry.create)) : undefined;
    const update = entry.update ? writableSchema(resolveRef(document, entry.update)) : undefined;
    const canWrite = (operation: string) => entry.operations.includes(operation);
    blocks.push(
      [
        `/** A ${entry.collection} entity as the local store holds it (from GET ${entry.path}). */`,
        `export type ${base} = ${schemaToType(entity, nameOf)};`,
        "",
        `/** What creating a ${entry.collection} entity takes${create ? "" : " (the document has no create schema: any of the entity's fields)"}. */`,
        `export type ${base}Create = ${create ? schemaToType(create, nameOf) : `Partial<Omit<${base}, "id">>`};`,
        "",
        `/** What an update of a ${entry.collection} entity may change${update ? "" : " (the document has no patch schema: any of the entity's fields)"}. */`,
        `export type ${base}Update = ${update ? schemaToType(update, nameOf) : `Partial<Omit<${base}, "id">>`};`,
        "",
        `/** Hooks of the ${entry.collection} collection. The server permits: ${entry.operations.join(", ") || "no writes"}. */`,
        `export const ${hooksName(base)}: CollectionHooks<${base}, ${base}Create, ${base}Update> = createCollectionHooks<${base}, ${base}Create, ${base}Update>({ collection: ${JSON.stringify(entry.collection)} });`,
        `export const use${base}List = ${hooksName(base)}.useList;`,
        `export const use${base} = ${hooksName(base)}.useRead;`,
        ...(canWrite("create") ? [`export const useCreate${base} = ${hooksName(base)}.useCreate;`] : []),
        ...(canWrite("update") ? [`export const useUpdate${base} = ${hooksName(base)}.useUpdate;`] : []),
        ...(canWrite("delete") ? [`export const useDelete${base} = ${hooksName(base)}.useDelete;`] : []),
      ].join("\n"),
    );
  }
  const componentBlocks: string[] = [];
  for (let index = 0; index < pending.length; index++) {
    const component = pending[index]!;
    const schema = document.components?.schemas?.[component];
    componentBlocks.push(`/** The ${component} schema of the document. */\nexport type ${components.get(component)!} = ${schemaToType(schema, nameOf)};`);
  }
  const header = [
    `// Generated by svc-syncdb-codegen${options.source ? ` from ${options.source}` : ""}. Do not edit: run the generator again.`,
    `import { createCollectionHooks, type CollectionHooks } from ${JSON.stringify(options.importFrom ?? "svc/sync/react")};`,
    "",
    "/** The synced collections, for `createSyncDb({ collections: [...SYNC_COLLECTIONS] })`. */",
    `export const SYNC_COLLECTIONS = [${found.map((entry) => JSON.stringify(entry.collection)).join(", ")}] as const;`,
    "export type SyncCollection = (typeof SYNC_COLLECTIONS)[number];",
  ].join("\n");
  return `${[header, ...blocks, ...componentBlocks].join("\n\n")}\n`;
}
