import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * True when the module at `moduleUrl` is the process entry point (also through an npm bin symlink),
 * so an executable module can be imported by tests without starting.
 *
 * @example
 * if (invokedDirectly(import.meta.url)) void main();
 */
export function invokedDirectly(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === fileURLToPath(moduleUrl);
  } catch {
    return false;
  }
}
