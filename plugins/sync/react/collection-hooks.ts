import type { EntityRead } from "../client/index.js";
import { SyncReactErrors } from "./errors.js";
import { useEntity } from "./use-entity.js";
import { useMutate, type MutationResult } from "./use-mutate.js";
import { useQuery, type UseQueryOptions } from "./use-query.js";

/**
 * How often a mutation may be sent: `false` once (1 attempt), a number that many attempts,
 * omitted the engine's default (keep retrying with backoff).
 */
export type RetriesOption = false | number;

/** Options of a collection's mutation hooks. */
export interface MutationHookOptions {
  readonly retries?: RetriesOption;
}

/** The attempts a `retries` option stands for (`undefined`: the engine's default). */
export function attemptsFor(retries: RetriesOption | undefined): number | undefined {
  if (retries === undefined) return undefined;
  if (retries === false) return 1;
  if (!Number.isInteger(retries) || retries < 1) throw SyncReactErrors.INVALID_RETRIES(String(retries));
  return retries;
}

/** The hooks `createCollectionHooks` makes for one collection. */
export interface CollectionHooks<T extends Record<string, unknown>> {
  readonly collection: string;
  /** The retry budget the mutation hooks were made with (see `attemptsFor`). */
  readonly maxAttempts: number | undefined;
  useList(options?: UseQueryOptions): readonly EntityRead<T>[];
  useRead(id: string | undefined): EntityRead<T> | undefined;
  useCreate(options?: MutationHookOptions): readonly [create: (data: Partial<T>, id?: string) => MutationResult];
  useUpdate(options?: MutationHookOptions): readonly [update: (id: string, data: Partial<{ [K in keyof T]: T[K] | null }>) => MutationResult];
  useDelete(options?: MutationHookOptions): readonly [remove: (id: string) => MutationResult];
}

/**
 * Typed hooks for one collection (what `svc-syncdb-codegen` generates calls of): list and read
 * hooks, and create, update and delete hooks returning `[trigger]`.
 *
 * @example
 * const todos = createCollectionHooks<{ id: string; title: string; done: boolean }>({ collection: "todos" });
 * function NewTodo() {
 *   const [create] = todos.useCreate();
 *   return <button onClick={() => create({ title: "Milk", done: false })}>Add</button>;
 * }
 */
export function createCollectionHooks<T extends Record<string, unknown> = Record<string, unknown>>(options: { readonly collection: string; readonly retries?: RetriesOption }): CollectionHooks<T> {
  const { collection } = options;
  const maxAttempts = attemptsFor(options.retries);
  const checked = (hookOptions: MutationHookOptions | undefined) => void attemptsFor(hookOptions?.retries);
  return {
    collection,
    maxAttempts,
    useList: (query) => useQuery<T>(collection, query),
    useRead: (id) => useEntity<T>(collection, id),
    useCreate(hookOptions) {
      checked(hookOptions);
      return [useMutate<T>(collection).create] as const;
    },
    useUpdate(hookOptions) {
      checked(hookOptions);
      return [useMutate<T>(collection).update] as const;
    },
    useDelete(hookOptions) {
      checked(hookOptions);
      return [useMutate<T>(collection).remove] as const;
    },
  };
}
