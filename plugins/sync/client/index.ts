// svc/sync/client: the local-first sync client (docs/sync-client.md). Runs in browsers and in
// Node; imports nothing server-side.
export { createSyncDb, wipeLocalData, type MutateInput, type SyncDb } from "./create-sync-db.js";
export type { ConflictStrategy } from "./conflict-resolution.js";
export { SYNC_DB_DEFAULTS, type DecryptFailureHandler, type SyncDbOptions, type SyncKeyProvider } from "./sync-db-options.js";
export { sessionAuthAdapter, type SessionAuthClient, type SyncAuthProvider } from "./auth-provider.js";
export { generateMutationId } from "./mutation-id.js";
export { listConflicts, type StoreWatch, type SyncOutbox, type SyncStore } from "./sync-store.js";
export type { StoreQuery } from "./store-query.js";
export type { EntityRead } from "./entity-view.js";
export type { CollectionSyncStatus, SyncStatus } from "./sync-status.js";
export type { ForceResyncResult } from "./stream-pager.js";
export { createMemoryPersister, type PersistedChange, type PersistedTableName, type PersistedTables, type SyncPersister, type SyncPersisterContext, type SyncPersisterFactory } from "./persister.js";
export { createIndexedDbPersister, type IndexedDbPersisterOptions } from "./indexeddb-persister.js";
export { localKeyProvider, serverKeyProvider } from "./key-providers.js";
export type { SchemaMigration, SchemaMigrationInput, SchemaMigrationResult } from "./schema-migration.js";
export type { LeaderCall, SyncBroadcastChannel, SyncLockManager, SyncTabsOptions } from "./tab-coordinator.js";
export type { ConflictRecord, CursorRecord, OutboxRow, OutboxStatus, SchemaRecord, ServerEntityRecord } from "./records.js";
export { SyncRequestError, type SyncHttpChannel, type SyncTransport, type TransportEvent } from "./transport.js";
export { createSocketTransport, type SocketTransportOptions } from "./socket-transport.js";
export { createHttpChannel, type HttpChannelOptions } from "./http-channel.js";
export type { BatchOutcome, MutationOperation, NackCode, SnapshotEntity, SnapshotPage, StreamMembership, SyncAck, SyncDelta, SyncNack, WireMutation } from "./wire-types.js";
export type { SyncDebugEvent, SyncDebugLog, SyncDebugOptions, SyncDebugStats } from "./debug-log.js";
export { SyncClientErrors } from "./errors.js";
