// The code generator behind `svc-syncdb-codegen` (docs/sync-react.md#codegen): OpenAPI in, typed
// React hooks of svc/sync/react out.
export { generateSyncHooks, type GenerateSyncHooksOptions } from "./render-hooks.js";
export { findCollections, type FoundCollection, type OpenApiDocument, type OpenApiOperation } from "./find-collections.js";
export { schemaToType, type JsonSchema } from "./schema-to-type.js";
export { runCodegen, type CodegenIo } from "./run-codegen.js";
export { SyncCodegenErrors } from "./errors.js";
