import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A fresh directory under the OS temp dir, removed when the test ends. Register it before the
 * things that use it: ava runs teardowns last-in-first-out, so engines stop before it is removed.
 *
 * @example
 * const dbPath = tempDir(t, "svc-journal-");
 */
export function tempDir(t: { teardown(fn: () => void): void }, prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
