import test from "ava";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./test-support/temp-dir.js";

// The engine ships as its own subpath (svc/embedded-mongo) and could leave the repository as a
// package of its own: neither its source nor its tests may reach outside this folder. npm packages
// are fine; the framework re-exports the engine's test helpers, never the other way round.

const ENGINE_ROOT = path.dirname(fileURLToPath(import.meta.url));

/** Static `import`/`export ... from "x"`, side-effect `import "x"`, and dynamic `import("x")`. */
const SPECIFIER = /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/**
 * Every relative import in the `.ts` files under `root` (recursively, tests included) that resolves
 * outside `root`, as `file → specifier` with `file` relative to `root`.
 */
async function importsLeaving(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  const found: string[] = [];
  for (const file of files) {
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (!specifier.startsWith(".")) continue;
      const target = path.relative(root, path.resolve(path.dirname(file), specifier));
      if (target.startsWith("..") || path.isAbsolute(target)) found.push(`${path.relative(root, file)} → ${specifier}`);
    }
  }
  return found;
}

test("no file of the engine, source or test, imports anything outside adapters/embedded-mongo", async (t) => {
  t.deepEqual(await importsLeaving(ENGINE_ROOT), []);
});

test("the checker reports static, side-effect and dynamic imports that leave the folder", async (t) => {
  // Guards the guard, on a throw-away tree.
  const root = path.join(tempDir(t, "svc-engine-imports-"), "engine");
  await mkdir(path.join(root, "journal"), { recursive: true });
  // Built from pieces so that this file's own text holds no import leaving the engine.
  const parent = "..";
  const up = `${parent}/..`;
  await writeFile(path.join(root, "engine.ts"), 'import { x } from "./journal/journal.js";\nimport { Long } from "bson";\n');
  await writeFile(
    path.join(root, "journal", "journal.ts"),
    [
      `import type { Y } from "${parent}/engine.js";`,
      `export { tempDir } from "${up}/test/support/temp-dir.js";`,
      `import "${up}/polyfill.js";`,
      `const later = await import("${up}/kernel/errors.js");`,
      "",
    ].join("\n"),
  );
  await writeFile(path.join(root, "journal", "journal.test.ts"), `import {\n  a,\n  b,\n} from "${up}/test/support/kill.js";\n`);
  t.deepEqual(await importsLeaving(root), [
    "journal/journal.test.ts → ../../test/support/kill.js",
    "journal/journal.ts → ../../test/support/temp-dir.js",
    "journal/journal.ts → ../../polyfill.js",
    "journal/journal.ts → ../../kernel/errors.js",
  ]);
});
