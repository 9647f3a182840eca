import pluralize from "pluralize";
import { findCollections, resolveRef, type FoundCollection, type OpenApiDocument } from "./find-collections.js";
import { aliasRefs, isObjectSchema, schemaToType, type JsonSchema } from "./schema-to-type.js";

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

/** An entity's name from its collection's (`todos` → `todo`, `statuses` → `status`, `status` stays). */
const singular = (word: string) => pluralize.singular(word);

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

/**
 * A create or patch schema as the hooks take it: without the server's bookkeeping (a sync mutation
 * names its id apart and may not write `_id`) and not `null` (a mutation's data is an object).
 * `undefined` when it is no object at all (a string body, an enum, a `$ref` cycle): `createCollectionHooks`
 * takes object types only, so the entity's fields stand in.
 */
function writableSchema(document: OpenApiDocument, written: JsonSchema | undefined): JsonSchema | undefined {
  // The write types are written inline, so a `$ref` chain is followed to its end (`null` may sit there).
  const seen = new Set<string>();
  let schema = written;
  while (schema?.$ref && !seen.has(schema.$ref)) {
    seen.add(schema.$ref);
    schema = resolveRef(document, schema);
  }
  if (!schema || typeof schema !== "object" || schema.$ref) return undefined;
  const types = schema.type === undefined ? undefined : (Array.isArray(schema.type) ? (schema.type as readonly string[]) : [schema.type as string]).filter((type) => type !== "null");
  const alternatives = (list: readonly JsonSchema[] | undefined) => list?.filter((alternative) => alternative.type !== "null");
  const { nullable: _nullable, ...rest } = schema;
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([name]) => !BOOKKEEPING.has(name)));
  const required = (schema.required ?? []).filter((name) => !BOOKKEEPING.has(name));
  const writable: JsonSchema = {
    ...rest,
    ...(types ? { type: types } : {}),
    ...(schema.anyOf ? { anyOf: alternatives(schema.anyOf)! } : {}),
    ...(schema.oneOf ? { oneOf: alternatives(schema.oneOf)! } : {}),
    ...(schema.properties || !schema.allOf ? { properties } : {}),
    ...(schema.required ? { required } : {}),
  };
  const resolve = (ref: string) => resolveRef(document, { $ref: ref });
  return isObjectSchema(writable, resolve) ? writable : undefined;
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
    const create = writableSchema(document, entry.create);
    const update = writableSchema(document, entry.update);
    const canWrite = (operation: string) => entry.operations.includes(operation);
    blocks.push(
      [
        `/** A ${entry.collection} entity as the local store holds it (from GET ${entry.path}). */`,
        `export type ${base} = ${schemaToType(entity, nameOf)};`,
        "",
        `/** What creating a ${entry.collection} entity takes${create ? "" : entry.create ? " (the document's create schema is no object: any of the entity's fields)" : " (the document has no create schema: any of the entity's fields)"}. */`,
        `export type ${base}Create = ${create ? schemaToType(create, nameOf) : `Partial<Omit<${base}, "id">>`};`,
        "",
        `/** What an update of a ${entry.collection} entity may change${update ? "" : entry.update ? " (the document's patch schema is no object: any of the entity's fields)" : " (the document has no patch schema: any of the entity's fields)"}. */`,
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
  const schemaOf = (component: string) => document.components?.schemas?.[component];
  // `A: {$ref: B}, B: {anyOf: [A, ...]}` would be a type alias tsc refuses ("circularly references
  // itself"); such a component says nothing a value could be checked against, so it is `unknown`.
  const onAliasCycle = (component: string) => {
    const seen = new Set<string>();
    const queue = aliasRefs(schemaOf(component)).map(componentName);
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (next === component) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...aliasRefs(schemaOf(next)).map(componentName));
    }
    return false;
  };
  const componentBlocks: string[] = [];
  for (let index = 0; index < pending.length; index++) {
    const component = pending[index]!;
    const cyclic = onAliasCycle(component);
    const type = cyclic ? "unknown" : schemaToType(schemaOf(component), nameOf);
    componentBlocks.push(`/** The ${component} schema of the document${cyclic ? " (defined only by itself: unknown)" : ""}. */\nexport type ${components.get(component)!} = ${type};`);
  }
  const header = [
    // A line break in the source (a file name may have one) would end the comment and leave code.
    `// Generated by svc-syncdb-codegen${options.source ? ` from ${options.source.replace(/[\r\n\u2028\u2029]/g, " ")}` : ""}. Do not edit: run the generator again.`,
    `import { createCollectionHooks, type CollectionHooks } from ${JSON.stringify(options.importFrom ?? "svc/sync/react")};`,
    "",
    "/** The synced collections, for `createSyncDb({ collections: [...SYNC_COLLECTIONS] })`. */",
    `export const SYNC_COLLECTIONS = [${found.map((entry) => JSON.stringify(entry.collection)).join(", ")}] as const;`,
    "export type SyncCollection = (typeof SYNC_COLLECTIONS)[number];",
  ].join("\n");
  return `${[header, ...blocks, ...componentBlocks].join("\n\n")}\n`;
}
