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
  // Retried: a child process just stopped (a browser's helpers, a server's last write) may still be
  // adding a file while the tree is removed, which fails one pass with ENOTEMPTY.
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
  return dir;
}
