import type { SchemaObject } from "openapi3-ts/oas31";
import { SNAPSHOT_DEFAULT_LIMIT, SNAPSHOT_MAX_LIMIT } from "./snapshot-service.js";

/**
 * Mutations per batch (SPEC §8); a longer `POST /sync/mutate/batch` is a 400.
 *
 * @example
 * for (let start = 0; start < queue.length; start += MAX_BATCH) await sendBatch(queue.slice(start, start + MAX_BATCH));
 */
export const MAX_BATCH = 100;
/**
 * Ids per `GET /sync/entities` lookup (later ones are ignored).
 *
 * @example
 * GET /sync/entities?collection=todos&ids=a,b,c  // up to MAX_LOOKUP_IDS ids
 */
export const MAX_LOOKUP_IDS = 100;

/** `GET /sync/snapshot` query. */
export const SNAPSHOT_QUERY_SCHEMA: SchemaObject = {
  type: "object",
  required: ["collection"],
  additionalProperties: false,
  properties: {
    collection: { type: "string", minLength: 1, maxLength: 128, description: "The synced collection, e.g. todos" },
    stream: { type: "string", minLength: 1, maxLength: 512, description: "One of the caller's streams (GET /sync/streams); may be left out when the caller has exactly one" },
    cursor: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: "The cursor of the previous page (0 or absent: from the start)" },
    limit: { type: "integer", minimum: 1, maximum: SNAPSHOT_MAX_LIMIT, default: SNAPSHOT_DEFAULT_LIMIT, description: `Entities per page (default ${SNAPSHOT_DEFAULT_LIMIT}, at most ${SNAPSHOT_MAX_LIMIT})` },
  },
};

/** `GET /sync/entities` query. */
export const ENTITIES_QUERY_SCHEMA: SchemaObject = {
  type: "object",
  required: ["collection", "ids"],
  additionalProperties: false,
  properties: {
    collection: { type: "string", minLength: 1, maxLength: 128, description: "The synced collection" },
    ids: { type: "string", minLength: 1, maxLength: 13000, pattern: "^[A-Za-z0-9._:,-]+$", description: `Comma-separated entity ids (at most ${MAX_LOOKUP_IDS})` },
  },
};

/** `POST /sync/mutate/batch` body (each entry is checked as a mutation, in order). */
export const BATCH_BODY_SCHEMA: SchemaObject = {
  type: "object",
  required: ["mutations"],
  additionalProperties: false,
  properties: {
    mutations: { type: "array", minItems: 1, maxItems: MAX_BATCH, items: { type: "object" }, description: `At most ${MAX_BATCH} mutations, applied in order` },
    batchId: { type: "string", maxLength: 128, description: "The client's batch id (echoed in logs only)" },
  },
};
