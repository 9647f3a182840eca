// svc/sync/react: React bindings of the sync client (docs/sync-react.md). Every hook reads through
// useSyncExternalStore and subscribes to what it shows only (one entity, one query, the status).
export { SyncDbProvider, useSyncDbClient, type SyncDbProviderProps } from "./sync-db-context.js";
export { useEntity } from "./use-entity.js";
export { useQuery, useEntityIds, type UseQueryOptions } from "./use-query.js";
export { useMutate, type CollectionMutators, type MutationResult, type UseMutateOptions } from "./use-mutate.js";
export { useSyncStatus, useConflicts, type ConflictsState } from "./use-sync-status.js";
export { useSyncDebugLog, type SyncDebugLogState } from "./use-sync-debug-log.js";
export { createCollectionHooks, attemptsFor, type CollectionHooks, type MutationHookOptions, type RetriesOption, type UpdateData } from "./collection-hooks.js";
export { SyncReactErrors } from "./errors.js";
