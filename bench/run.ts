/**
 * `npm run bench`: runs the default export of every `bench/*.ts` except this file, in turn, each
 * in a process of its own. Each benchmark prints its own numbers as ratios against a baseline
 * measured in the same run (absolute numbers vary by machine; ratios are what to compare).
 *
 * One process per benchmark, because what one leaves behind skews the next: after the engine
 * benchmark's 100,000-document collections and the servers of the others, the sync client's
 * apply+read measured 0.22 of a plain Map where it measures 0.31–0.33 on its own (its client
 * side allocates per delta, and a bigger heap makes every collection slower).
 *
 * @example
 * npm run bench            # all benchmarks
 * npm run bench -- engine  # only files whose name contains "engine"
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [first, second] = process.argv.slice(2);

if (first === "--one") {
  // The child: one benchmark file.
  const module = (await import(pathToFileURL(path.join(here, second!)).href)) as { default?: () => unknown };
  if (typeof module.default === "function") await module.default();
} else {
  const files = readdirSync(here)
    .filter((file) => file.endsWith(".ts") && file !== "run.ts" && !file.endsWith(".test.ts") && !file.endsWith(".d.ts"))
    .filter((file) => first === undefined || file.includes(first))
    .sort();
  const failed: string[] = [];
  for (const file of files) {
    console.log(`\n=== ${file} ===`);
    const code = await new Promise<number | null>((resolve) => {
      // The same Node flags as this process (`--import=tsx`).
      const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--one", file], { stdio: "inherit" });
      child.on("exit", (exitCode) => resolve(exitCode));
    });
    if (code !== 0) failed.push(`${file} (exit ${code})`);
  }
  if (failed.length > 0) {
    console.error(`\nBenchmarks that failed: ${failed.join(", ")}`);
    process.exitCode = 1;
  }
}
