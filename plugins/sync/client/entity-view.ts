import type { OutboxRow, ServerEntityRecord } from "./records.js";

/**
 * What the app reads for one entity: the server's state with this client's pending mutations
 * applied on top. `seq` is the server seq the data is based on (0 when the server has not
 * acknowledged the entity yet); `isPending` is true while a mutation of it is queued, in
 * conflict or failed.
 */
export interface EntityRead<T extends Record<string, unknown> = Record<string, unknown>> {
  readonly data: Readonly<T>;
  readonly deleted: boolean;
  readonly seq: number;
  readonly isPending: boolean;
}

/**
 * Applies the pending rows of an entity, in queue order, to its server state. An update merges
 * its fields (a `null` empties a field, as the server does); a delete marks a tombstone.
 */
export function entityView(server: ServerEntityRecord | undefined, pending: readonly OutboxRow[], id: string): EntityRead | undefined {
  if (!server && pending.length === 0) return undefined;
  // No pending change (most reads): the server's data as stored. Stored records are never
  // changed in place (every change stores a new record), so freezing it costs no copy.
  if (server && pending.length === 0) return Object.freeze({ data: Object.freeze(server.data), deleted: server.deleted, seq: server.seq, isPending: false });
  let data: Record<string, unknown> = server ? { ...server.data } : { id };
  let deleted = server?.deleted ?? false;
  for (const row of pending) {
    if (row.operation === "create") {
      data = { ...row.data, id };
      deleted = false;
    } else if (row.operation === "update") {
      data = { ...data, ...row.data, id };
    } else {
      deleted = true;
    }
  }
  return Object.freeze({ data: Object.freeze(data), deleted, seq: server?.seq ?? 0, isPending: pending.length > 0 });
}
