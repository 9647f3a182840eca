import type { ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import type { OpenApiRegistry, OperationObject } from "../../kernel/openapi-registry.js";
import { BEARER_SCHEME, sharedResponse } from "../../kernel/openapi-shared-components.js";
import { MUTATION_SCHEMA } from "./mutation-schema.js";
import { BATCH_BODY_SCHEMA, ENTITIES_QUERY_SCHEMA, SNAPSHOT_QUERY_SCHEMA } from "./sync-route-schemas.js";

/** The sync plugin's one tag. */
export const SYNC_TAG = { name: "sync", description: "Local-first sync: snapshots by stream and cursor, entity repair, key material and mutations" };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object, description: string) => ({ description, content: { "application/json": { schema } } });

/** Query parameters of a route from its object schema. */
function queryParameters(schema: SchemaObject): ParameterObject[] {
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query" as const,
    required: schema.required?.includes(name) ?? false,
    description: (property as SchemaObject).description,
    schema: property,
  }));
}

/**
 * Documents the sync routes (`mountSyncRoutes`) under the `sync` tag, each with a stable
 * operationId, bearer security and the shared error responses; nack bodies are a schema of their own.
 *
 * @example
 * documentSyncRoutes(ctx.openapi, "/sync");
 */
export function documentSyncRoutes(openapi: OpenApiRegistry, basePath: string): void {
  openapi.addTag(SYNC_TAG);
  openapi.addSchema("SyncEntity", {
    type: "object",
    required: ["id", "data", "seq", "deleted"],
    properties: {
      id: { type: "string", description: "The entity id" },
      data: { type: "object", description: "The entity's fields (with id)" },
      seq: { type: "integer", description: "Seq of the entity's last write in its stream" },
      deleted: { type: "boolean", description: "A tombstone: deleted, or moved out of this stream" },
    },
  });
  openapi.addSchema("SyncAck", {
    type: "object",
    required: ["mutationId", "id", "seq"],
    properties: { mutationId: { type: "string" }, id: { type: "string", description: "The entity id" }, seq: { type: "integer", description: "Seq of the write" } },
  });
  openapi.addSchema("SyncNack", {
    type: "object",
    required: ["mutationId", "code"],
    properties: {
      mutationId: { type: "string" },
      code: { type: "string", enum: ["conflict", "forbidden", "validation", "rate_limited", "not_found", "error"], description: "Why it was refused (nothing was written)" },
      serverDoc: { type: "object", description: "conflict: the server's entity data" },
      serverSeq: { type: "integer", description: "conflict: the server's seq" },
      serverDeleted: { type: "boolean", description: "conflict: whether the server's entity is deleted" },
      message: { type: "string" },
      retryAfterMs: { type: "integer" },
    },
  });
  openapi.addSchema("SyncMutation", MUTATION_SCHEMA);

  const secured = (operation: OperationObject): OperationObject => ({
    tags: [SYNC_TAG.name],
    security: [{ [BEARER_SCHEME]: [] }],
    ...operation,
    responses: { ...operation.responses, 401: sharedResponse("Unauthorized") },
  });
  // A refused mutation answers the nack and the error shape of every route, side by side.
  const nackBody = (description: string) =>
    json({ type: "object", required: ["nack", "errors"], properties: { nack: ref("SyncNack"), errors: { type: "array", items: ref("ErrorObject") }, requestId: { type: "string" } } }, description);

  openapi.addOperation("get", `${basePath}/snapshot`, secured({
    operationId: "readSyncSnapshot",
    summary: "Page one stream by cursor",
    description: "Entities of one stream with seq above `cursor`, in seq order, never above `frontierSeq` (the stream's committed frontier). Pass `cursor` back until `hasMore` is false.",
    parameters: queryParameters(SNAPSHOT_QUERY_SCHEMA),
    responses: {
      200: json({
        type: "object",
        required: ["stream", "entities", "cursor", "hasMore", "frontierSeq"],
        properties: {
          stream: { type: "string" },
          entities: { type: "array", items: ref("SyncEntity") },
          cursor: { type: "integer", description: "The next page's cursor" },
          hasMore: { type: "boolean" },
          frontierSeq: { type: "integer", description: "Every write of the stream at or below it has committed" },
        },
      }, "One page of the stream"),
      400: sharedResponse("BadRequest"),
      403: sharedResponse("Forbidden"),
      404: sharedResponse("NotFound"),
    },
  }));
  openapi.addOperation("get", `${basePath}/streams`, secured({
    operationId: "listSyncStreams",
    summary: "The caller's streams",
    responses: {
      200: json({ type: "object", required: ["streams"], properties: { streams: { type: "array", items: { type: "object", required: ["collection", "stream"], properties: { collection: { type: "string" }, stream: { type: "string" } } } } } }, "Stream memberships"),
    },
  }));
  openapi.addOperation("get", `${basePath}/entities`, secured({
    operationId: "readSyncEntities",
    summary: "Look up entities by id (repair)",
    description: "Only entities in the caller's streams are returned; others are left out, as if they did not exist.",
    parameters: queryParameters(ENTITIES_QUERY_SCHEMA),
    responses: {
      200: json({ type: "object", required: ["entities"], properties: { entities: { type: "array", items: ref("SyncEntity") } } }, "The visible entities"),
      400: sharedResponse("BadRequest"),
      404: sharedResponse("NotFound"),
    },
  }));
  openapi.addOperation("get", `${basePath}/key`, secured({
    operationId: "readSyncKey",
    summary: "The caller's key material for local encryption",
    responses: { 200: json({ type: "object", required: ["keyMaterial"], properties: { keyMaterial: { type: "string", description: "32 bytes, base64" } } }, "Key material (created once per user)") },
  }));
  openapi.addOperation("post", `${basePath}/mutate`, secured({
    operationId: "applySyncMutation",
    summary: "Apply one mutation",
    requestBody: { required: true, content: { "application/json": { schema: ref("SyncMutation") } } },
    responses: {
      200: json({ type: "object", required: ["ack"], properties: { ack: ref("SyncAck") } }, "Applied (or already applied: the original ack)"),
      400: sharedResponse("BadRequest"),
      403: nackBody("forbidden"),
      404: nackBody("not_found"),
      409: nackBody("conflict: baseVersion is not the entity's current seq"),
      413: json(ref("ErrorResponse"), "The body is larger than the app's JSON limit"),
      415: json(ref("ErrorResponse"), "The body is not JSON"),
      422: nackBody("validation"),
      500: nackBody("error"),
    },
  }));
  openapi.addOperation("post", `${basePath}/mutate/batch`, secured({
    operationId: "applySyncMutationBatch",
    summary: "Apply up to 100 mutations in order",
    description: "Entries are applied in order; the first that is not acked stops the batch, and later entries come back as `{notAttempted: {mutationId}}`.",
    requestBody: { required: true, content: { "application/json": { schema: { ...BATCH_BODY_SCHEMA, properties: { ...BATCH_BODY_SCHEMA.properties, mutations: { ...(BATCH_BODY_SCHEMA.properties!.mutations as object), items: ref("SyncMutation") } } } } } },
    responses: {
      200: json({
        type: "object",
        required: ["results"],
        properties: {
          results: {
            type: "array",
            items: {
              oneOf: [
                { type: "object", required: ["ack"], properties: { ack: ref("SyncAck") } },
                { type: "object", required: ["nack"], properties: { nack: ref("SyncNack") } },
                { type: "object", required: ["notAttempted"], properties: { notAttempted: { type: "object", required: ["mutationId"], properties: { mutationId: { type: "string" } } } } },
              ],
            },
          },
        },
      }, "One result per entry, in order"),
      400: sharedResponse("BadRequest"),
    },
  }));
}
