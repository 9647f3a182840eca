/**
 * The embedded engine's temp-dir helper, shared with the framework's tests: the engine keeps its
 * own test helpers so that it imports nothing from outside its folder.
 *
 * @example
 * const dbPath = tempDir(t, "svc-journal-");
 */
export { tempDir } from "../../adapters/embedded-mongo/test-support/temp-dir.js";
