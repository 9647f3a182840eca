import { SyncCodegenErrors } from "./errors.js";
import type { JsonSchema } from "./schema-to-type.js";

/** The parts of an OpenAPI document the generator reads. */
export interface OpenApiDocument {
  readonly openapi?: string;
  readonly paths?: Readonly<Record<string, Readonly<Record<string, OpenApiOperation | undefined>> | undefined>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> };
}

/** One operation, as far as the generator reads it. */
export interface OpenApiOperation {
  readonly "x-svc-sync"?: { readonly collection?: string; readonly scope?: string; readonly operations?: readonly string[] };
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: JsonSchema }>> };
  readonly responses?: Readonly<Record<string, { readonly content?: Readonly<Record<string, { readonly schema?: JsonSchema }>> } | undefined>>;
}

/** A synced collection found in the document, with the schemas of its list, create and patch operations. */
export interface FoundCollection {
  readonly collection: string;
  /** The list path, e.g. `/todos`. */
  readonly path: string;
  /** The list response's item schema (as written: often a `$ref`). */
  readonly item: JsonSchema;
  readonly create?: JsonSchema;
  readonly update?: JsonSchema;
  /** The writes the server permits (`x-svc-sync.operations`); all three when read without the extension. */
  readonly operations: readonly string[];
}

const jsonSchemaOf = (content: Readonly<Record<string, { readonly schema?: JsonSchema }>> | undefined) => content?.["application/json"]?.schema;

/** Follows a local `$ref` (`#/components/schemas/Name`) once; other schemas come back as they are. */
export function resolveRef(document: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema?.$ref) return schema;
  const name = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1];
  return name === undefined ? undefined : document.components?.schemas?.[decodeURIComponent(name)];
}

function describe(document: OpenApiDocument, collection: string, path: string, operations: readonly string[]): FoundCollection {
  const pathItem = document.paths?.[path];
  const list = pathItem?.get;
  if (!list) throw SyncCodegenErrors.PATH_MISSING(`GET ${path}`, collection);
  const page = resolveRef(document, jsonSchemaOf(list.responses?.["200"]?.content));
  const data = resolveRef(document, page?.properties?.data);
  const types = data?.type === undefined ? [] : Array.isArray(data.type) ? data.type : [data.type];
  if (!data || !types.includes("array") || !data.items) throw SyncCodegenErrors.NO_LIST_ITEMS(path);
  const create = jsonSchemaOf(pathItem.post?.requestBody?.content);
  // The item path of the collection: `/todos/{id}` (whatever the parameter's name).
  const itemPath = Object.keys(document.paths ?? {}).find((candidate) => candidate.startsWith(`${path}/{`) && /^\{[^/]+\}$/.test(candidate.slice(path.length + 1)));
  const update = itemPath ? jsonSchemaOf(document.paths?.[itemPath]?.patch?.requestBody?.content) : undefined;
  return { collection, path, item: data.items, operations, ...(create ? { create } : {}), ...(update ? { update } : {}) };
}

/**
 * The synced collections of an OpenAPI document: the list operations carrying `x-svc-sync`, or,
 * when `collections` are named, those (by the extension when it names them, else `GET /{name}`).
 * Sorted by collection name, so the output does not depend on the document's order.
 *
 * @example
 * findCollections(document, ["todos"]); // [{ collection: "todos", path: "/todos", item: { $ref: "#/components/schemas/Todo" }, ... }]
 */
export function findCollections(document: OpenApiDocument, collections?: readonly string[]): FoundCollection[] {
  const extended = new Map<string, { path: string; operations: readonly string[] }>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const extension = item?.get?.["x-svc-sync"];
    // The names end up in the generated code (a number there is a file tsc refuses); `runCodegen` reports the TypeError.
    if (extension && (typeof extension.collection !== "string" || (extension.operations !== undefined && !(Array.isArray(extension.operations) && extension.operations.every((operation) => typeof operation === "string"))))) {
      throw new TypeError(`x-svc-sync of GET ${path} needs a collection name and, if any, a list of operations`);
    }
    if (extension?.collection) extended.set(extension.collection, { path, operations: extension.operations ?? ["create", "update", "delete"] });
  }
  if (!collections?.length) {
    if (extended.size === 0) throw SyncCodegenErrors.NO_COLLECTIONS();
    return [...extended.keys()].sort().map((collection) => describe(document, collection, extended.get(collection)!.path, extended.get(collection)!.operations));
  }
  return [...new Set(collections)].sort().map((collection) => {
    const found = extended.get(collection);
    return found ? describe(document, collection, found.path, found.operations) : describe(document, collection, `/${collection}`, ["create", "update", "delete"]);
  });
}
