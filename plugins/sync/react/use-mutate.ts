import { useMemo } from "react";
import { useSyncDbClient } from "./sync-db-context.js";

/** What a mutation returns at once: the queued mutation's id and the entity's id. */
export interface MutationResult {
  readonly mutationId: string;
  readonly id: string;
}

/** The writers of one collection returned by `useMutate`. */
export interface CollectionMutators<T extends Record<string, unknown> = Record<string, unknown>> {
  /** Creates an entity (a UUID is minted unless `id` is given). */
  create(data: Partial<T>, id?: string): MutationResult;
  /** Changes some fields (`null` empties a field). */
  update(id: string, data: Partial<{ [K in keyof T]: T[K] | null }>): MutationResult;
  remove(id: string): MutationResult;
}

/** Options of `useMutate`: `maxAttempts` is passed to every `mutate` (omitted: the engine retries until it goes through). */
export interface UseMutateOptions {
  readonly maxAttempts?: number;
}

/**
 * Writers for a collection: each applies the change to the local store, queues it for the server
 * and returns `{mutationId, id}` synchronously (the store already shows the change).
 *
 * @example
 * const todos = useMutate<{ title: string; done: boolean }>("todos");
 * const { id } = todos.create({ title: "Milk", done: false });
 * todos.update(id, { done: true });
 * const once = useMutate("todos", { maxAttempts: 1 }); // fails after one failed send
 */
export function useMutate<T extends Record<string, unknown> = Record<string, unknown>>(collection: string, options: UseMutateOptions = {}): CollectionMutators<T> {
  const client = useSyncDbClient();
  const { maxAttempts } = options;
  return useMemo(() => {
    const limit = maxAttempts === undefined ? {} : { maxAttempts };
    return {
      create: (data, id) => client.mutate({ collection, operation: "create", data, ...(id === undefined ? {} : { id }), ...limit }),
      update: (id, data) => client.mutate({ collection, operation: "update", id, data, ...limit }),
      remove: (id) => client.mutate({ collection, operation: "delete", id, ...limit }),
    };
  }, [client, collection, maxAttempts]);
}
