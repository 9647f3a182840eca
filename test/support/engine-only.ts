import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Declares that a test file runs on an embedded engine of its own, whatever the test database is
 * — because it tests the engine itself, or something only the engine can arrange (a five-entry
 * change-stream history, a data directory). With `SVC_TEST_DB_URI` set, it says so on stderr
 * (ava shows a test process's stderr): a run against a real MongoDB then lists the files it did
 * not run there, and why, instead of passing them silently. The tests still run, on the engine.
 *
 * @example
 * runsOnTheEmbeddedEngineOnly(import.meta.url, "it needs a change-stream history of five entries");
 */
export function runsOnTheEmbeddedEngineOnly(fileUrl: string, reason: string): void {
  if (!process.env.SVC_TEST_DB_URI) return;
  const file = path.relative(process.cwd(), fileURLToPath(fileUrl));
  process.stderr.write(`[embedded engine only] ${file} does not use SVC_TEST_DB_URI: ${reason}\n`);
}
