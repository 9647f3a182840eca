import type { EntityRead } from "../client/index.js";
import { SyncReactErrors } from "./errors.js";
import { useEntity } from "./use-entity.js";
import { useMutate, type MutationResult, type UseMutateOptions } from "./use-mutate.js";
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

/** The fields of an update: some of `U`'s, `null` empties one. */
export type UpdateData<U extends Record<string, unknown>> = Partial<{ [K in keyof U]: U[K] | null }>;

/**
 * The hooks `createCollectionHooks` makes for one collection: `T` is the entity as read, `C` what
 * a create takes, `U` what an update may change.
 */
export interface CollectionHooks<T extends Record<string, unknown>, C extends Record<string, unknown> = Partial<T>, U extends Record<string, unknown> = Partial<T>> {
  readonly collection: string;
  /** The attempts each mutation of these hooks may take (see `attemptsFor`); a hook's own `retries` overrides it. */
  readonly maxAttempts: number | undefined;
  useList(options?: UseQueryOptions): readonly EntityRead<T>[];
  useRead(id: string | undefined): EntityRead<T> | undefined;
  useCreate(options?: MutationHookOptions): readonly [create: (data: C, id?: string) => MutationResult];
  useUpdate(options?: MutationHookOptions): readonly [update: (id: string, data: UpdateData<U>) => MutationResult];
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
export function createCollectionHooks<T extends Record<string, unknown> = Record<string, unknown>, C extends Record<string, unknown> = Partial<T>, U extends Record<string, unknown> = Partial<T>>(options: {
  readonly collection: string;
  readonly retries?: RetriesOption;
}): CollectionHooks<T, C, U> {
  const { collection } = options;
  const maxAttempts = attemptsFor(options.retries);
  // A hook's own `retries` wins over the collection's.
  const limitOf = (hookOptions: MutationHookOptions | undefined): UseMutateOptions => {
    const attempts = hookOptions?.retries === undefined ? maxAttempts : attemptsFor(hookOptions.retries);
    return attempts === undefined ? {} : { maxAttempts: attempts };
  };
  return {
    collection,
    maxAttempts,
    useList: (query) => useQuery<T>(collection, query),
    useRead: (id) => useEntity<T>(collection, id),
    useCreate(hookOptions) {
      const { create } = useMutate(collection, limitOf(hookOptions));
      return [create as (data: C, id?: string) => MutationResult] as const;
    },
    useUpdate(hookOptions) {
      const { update } = useMutate(collection, limitOf(hookOptions));
      return [update as (id: string, data: UpdateData<U>) => MutationResult] as const;
    },
    useDelete(hookOptions) {
      return [useMutate(collection, limitOf(hookOptions)).remove] as const;
    },
  };
}
