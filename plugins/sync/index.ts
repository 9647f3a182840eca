// The `svc/sync` package entry (server side): the sync plugin's public surface. Other plugins
// import sync only through this file.
export { syncApp, type SyncAppOptions } from "./sync-plugin.js";
export { realtimeApp, type RealtimeAppOptions } from "./realtime-plugin.js";
export type { SyncDelta } from "./sync-delta.js";
export type { AuthExpiredReason, BatchAnswer } from "./sync-socket.js";
export { syncPlugin, UNSEQUENCED_WRITES, type SyncFields } from "./sync-schema-plugin.js";
export { SyncErrors } from "./errors.js";
export { SYNC_MUTATIONS } from "./sync-tokens.js";
export { MutationService } from "./mutation-service.js";
export { NACK_STATUS, type MutationOutcome, type NackCode, type SyncAck, type SyncNack } from "./nack.js";
export type { SyncMutation } from "./mutation-schema.js";
export type { SyncEntity } from "./entity-shape.js";
export { SNAPSHOT_DEFAULT_LIMIT, SNAPSHOT_MAX_LIMIT, type SnapshotPage } from "./snapshot-service.js";
export { MAX_BATCH, MAX_LOOKUP_IDS } from "./sync-route-schemas.js";
export type { NotAttempted } from "./apply-in-order.js";
export type { GetUserScopes } from "./synced-collections.js";
export { streamRule, type StreamRule, type SyncScopeKind } from "./stream-key.js";
export type { ModelSyncOptions, SyncScope } from "../../contracts/model-registry.js";
