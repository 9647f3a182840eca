import { defineErrors } from "../../../kernel/errors.js";

/**
 * Why `svc-syncdb-codegen` (or `generateSyncHooks`) refused to write hooks. The command prints
 * `svc-syncdb-codegen: <code>: <message>` and exits non-zero.
 *
 * @example
 * try { generateSyncHooks(spec, {}); } catch (error) { if (hasErrorCode(error, SyncCodegenErrors.NO_COLLECTIONS.code)) askForCollections(); }
 */
export const SyncCodegenErrors = defineErrors("SYNC_CODEGEN", {
  /** The command line could not be understood (an unknown option, a missing value, no `--schema` or `--out`). */
  USAGE: { message: (problem: string) => problem },
  /** The `--config` file is not JSON of the expected shape. */
  INVALID_CONFIG: { message: (file: string, problem: string) => `Config ${file}: ${problem}` },
  /** The `--schema` URL or file could not be read, or is not an OpenAPI document. */
  SCHEMA_UNREADABLE: { message: (source: string, problem: string) => `Cannot read the OpenAPI document at ${source}: ${problem}` },
  /** The `--out` file (or its folder) could not be written: a directory, a path through a file, no permission. */
  WRITE_FAILED: { message: (file: string, problem: string) => `Cannot write ${file}: ${problem}` },
  /** No list operation carries `x-svc-sync` and no `--collections` were given. */
  NO_COLLECTIONS: { message: () => "The OpenAPI document has no list operation with x-svc-sync: name the collections with --collections (read from GET /{name})" },
  /** A collection's list path (`GET /{name}`) is not in the document. */
  PATH_MISSING: { message: (path: string, collection: string) => `The OpenAPI document has no ${path} for collection "${collection}"` },
  /** A list response has no `data` array with an `items` schema (the shape of svc list responses). */
  NO_LIST_ITEMS: { message: (path: string) => `The 200 response of GET ${path} has no data array with an items schema` },
});
