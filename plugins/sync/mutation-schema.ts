import type { SchemaObject } from "openapi3-ts/oas31";

/** One client mutation (SPEC §6.1 `sync:mutate`; also the body of `POST /sync/mutate`). */
export interface SyncMutation {
  readonly mutationId: string;
  readonly collection: string;
  readonly operation: "create" | "update" | "delete";
  readonly id?: string;
  readonly data?: Record<string, unknown>;
  readonly baseVersion?: number;
}

/** Ids clients mint: bounded and plain (UUIDs, ULIDs...). */
export const ENTITY_ID_PATTERN = "^[A-Za-z0-9._:-]{1,128}$";

/**
 * The JSON schema of a mutation envelope (its `data` is checked against the model separately).
 *
 * @example
 * ajvFor({ coerceTypes: false, removeAdditional: false }).compile(MUTATION_SCHEMA);
 */
export const MUTATION_SCHEMA: SchemaObject = {
  type: "object",
  required: ["mutationId", "collection", "operation"],
  additionalProperties: false,
  properties: {
    mutationId: { type: "string", pattern: ENTITY_ID_PATTERN, description: "Client-minted id of this mutation; a replay answers the original ack" },
    collection: { type: "string", minLength: 1, maxLength: 128, description: "The synced collection" },
    operation: { type: "string", enum: ["create", "update", "delete"], description: "What to do" },
    id: { type: "string", pattern: ENTITY_ID_PATTERN, description: "The entity id (minted by the client on create)" },
    data: { type: "object", description: "Fields to create with, or to change (null empties a field)" },
    baseVersion: { type: "integer", minimum: 0, description: "The entity's seq the client based this on (required for update and delete)" },
  },
};
