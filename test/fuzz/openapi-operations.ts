// The operations an app documents, read from its served OpenAPI document with every `$ref`
// resolved: what the harness attacks. Reading the document (rather than a list kept here) is what
// makes a plugin added later fuzzed without touching the harness.
import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";

/** A JSON schema with references resolved (cycles cut at a depth). */
export type Schema = SchemaObject & { readonly [key: string]: unknown };

/** One parameter of an operation. */
export interface OperationParameter {
  readonly name: string;
  readonly in: "path" | "query" | "header" | "cookie";
  readonly required: boolean;
  readonly style?: string;
  readonly schema: Schema;
}

/** One method on one path. */
export interface FuzzOperation {
  /** `POST /todos/{id}`: how failures and `FUZZ_OPERATION` name it. */
  readonly name: string;
  readonly method: string;
  /** The OpenAPI path template, e.g. `/todos/{id}`. */
  readonly path: string;
  readonly parameters: readonly OperationParameter[];
  /** The JSON request body's schema, when the operation takes one. */
  readonly body?: Schema;
  /** Whether the body is required. */
  readonly bodyRequired: boolean;
  /** True when every security requirement needs credentials (no `{}` alternative). */
  readonly requiresAuth: boolean;
  /** Property names of the 2xx answer's records: what `sort` may name. */
  readonly recordFields: readonly string[];
}

const METHODS = ["get", "put", "post", "patch", "delete"] as const;
const MAX_REF_DEPTH = 12;

/**
 * Every operation of the document, in document order.
 *
 * @example
 * const operations = readOperations(await (await fetch(`${url}/openapi.json`)).json());
 */
export function readOperations(document: OpenAPIObject): FuzzOperation[] {
  const resolve = referenceResolver(document);
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const shared = (item.parameters ?? []) as Array<ParameterObject | ReferenceObject>;
    for (const method of METHODS) {
      const operation = item[method] as OperationObject | undefined;
      if (!operation) continue;
      const parameters = [...shared, ...((operation.parameters ?? []) as Array<ParameterObject | ReferenceObject>)].map((parameter) => {
        const resolved = resolve(parameter) as ParameterObject;
        return {
          name: resolved.name,
          in: resolved.in,
          required: resolved.required === true || resolved.in === "path",
          style: resolved.style,
          schema: resolve(resolved.schema ?? {}) as Schema,
        } satisfies OperationParameter;
      });
      const requestBody = operation.requestBody ? (resolve(operation.requestBody) as { required?: boolean; content?: Record<string, { schema?: unknown }> }) : undefined;
      const jsonType = Object.keys(requestBody?.content ?? {}).find((type) => /^application\/(?:[\w.+-]+\+)?json$/.test(type));
      const security = operation.security ?? document.security;
      operations.push({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        body: jsonType ? (resolve(requestBody!.content![jsonType]!.schema ?? {}) as Schema) : undefined,
        bodyRequired: requestBody?.required === true,
        requiresAuth: Array.isArray(security) && security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0),
        recordFields: recordFields(operation, resolve),
      });
    }
  }
  return operations;
}

/** A deep copy of a node with every `$ref` replaced by its target. */
function referenceResolver(document: OpenAPIObject): (node: unknown) => unknown {
  const lookup = (ref: string): unknown => {
    if (!ref.startsWith("#/")) return {};
    let node: unknown = document;
    for (const part of ref.slice(2).split("/")) {
      node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    return node ?? {};
  };
  const resolve = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((item) => resolve(item, depth));
    if (typeof node !== "object" || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string") return depth >= MAX_REF_DEPTH ? {} : resolve(lookup(ref), depth + 1);
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = resolve(value, depth);
    return copy;
  };
  return (node) => resolve(node, 0);
}

/** Fields of the records a 2xx answer carries (`data` or `data[]`), for plausible sorts. */
function recordFields(operation: OperationObject, resolve: (node: unknown) => unknown): string[] {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!status.startsWith("2")) continue;
    const content = (resolve(response) as { content?: Record<string, { schema?: unknown }> }).content ?? {};
    for (const media of Object.values(content)) {
      const schema = resolve(media.schema ?? {}) as Schema;
      const data = (schema.properties?.data ?? {}) as Schema;
      const record = (data.type === "array" ? data.items : data) as Schema | undefined;
      const names = Object.keys(record?.properties ?? {});
      if (names.length > 0) return names;
    }
  }
  return [];
}
