#!/usr/bin/env node
/**
 * `svc-syncdb-codegen`: writes typed React hooks of `svc/sync/react` for an app's synced
 * collections, read from its OpenAPI document (docs/sync-react.md#codegen).
 *
 * @example
 * svc-syncdb-codegen --schema http://localhost:3000/openapi.json --out src/sync-hooks.ts
 */
import { runCodegen } from "../plugins/sync/codegen/index.js";

process.exitCode = await runCodegen(process.argv.slice(2), {
  out: (line) => console.log(line),
  error: (line) => console.error(line),
});
