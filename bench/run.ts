/**
 * `npm run bench`: imports every `bench/*.ts` except this file and runs its default export in
 * turn. Each benchmark prints its own numbers as ratios against a baseline measured in the same
 * run (absolute numbers vary by machine; ratios are what to compare).
 *
 * @example
 * npm run bench            # all benchmarks
 * npm run bench -- engine  # only files whose name contains "engine"
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const files = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && file !== "run.ts" && !file.endsWith(".test.ts") && !file.endsWith(".d.ts"))
  .filter((file) => only === undefined || file.includes(only))
  .sort();

for (const file of files) {
  const module = (await import(pathToFileURL(path.join(here, file)).href)) as { default?: () => unknown };
  if (typeof module.default !== "function") continue;
  console.log(`\n=== ${file} ===`);
  await module.default();
}
