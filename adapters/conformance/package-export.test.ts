// svc/testing/conformance the way a third party's adapter test uses it: through the package's
// export map, with their own ava. The export's built file is mapped back to its source (the build
// emits dist/<source path>.js), so this needs no build; the docs' example of it is type-checked
// against the packed package by test/docs-code-blocks.test.ts.
import test from "ava";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ConsoleMailer } from "../mail/console.js";
import { InMemoryErrorTracker } from "../error-tracker/in-memory.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
  exports: Record<string, { types: string; import: string } | string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const entry = manifest.exports["./testing/conformance"] as { types: string; import: string };
const source = path.join(root, entry.import.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));
const conformance = (await import(pathToFileURL(source).href)) as typeof import("./index.js");

/** The packages a module and the project files it imports load at run time. */
async function runtimePackages(file: string, seen = new Set<string>()): Promise<Set<string>> {
  const packages = new Set<string>();
  if (seen.has(file)) return packages;
  seen.add(file);
  const text = await readFile(file, "utf8");
  // Type-only imports are erased: they load nothing.
  for (const [, specifier] of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+"([^"]+)"/gm)) {
    if (specifier!.startsWith(".")) {
      const imported = path.resolve(path.dirname(file), specifier!.replace(/\.js$/, ".ts"));
      for (const name of await runtimePackages(imported, seen)) packages.add(name);
    } else {
      packages.add(specifier!.startsWith("@") ? specifier!.split("/").slice(0, 2).join("/") : specifier!.split("/")[0]!);
    }
  }
  return packages;
}

test("svc/testing/conformance is a published entry with types, outside the test-only folders", (t) => {
  t.true(existsSync(source), `${entry.import} is built from ${path.relative(root, source)}`);
  t.is(entry.types, entry.import.replace(/\.js$/, ".d.ts"));
  t.notRegex(entry.import, /test-support/, "the build leaves out test-support/");
});

test("the published suites load no test runner: only svc's own dependencies", async (t) => {
  const allowed = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies), ...builtinModules]);
  const packages = [...(await runtimePackages(source))];
  t.true((await runtimePackages(fileURLToPath(import.meta.url))).has("ava"), "the scan sees this file's own import of ava");
  t.false(packages.includes("ava"));
  t.deepEqual(packages.filter((name) => !allowed.has(name.replace(/^node:/, ""))), []);
});

conformance.mailerConformance(test, "console, through svc/testing/conformance", () => ({ adapter: new ConsoleMailer() }));
conformance.errorTrackerConformance(test, "in-memory, through svc/testing/conformance", () => ({ tracker: new InMemoryErrorTracker() }));
