import test from "ava";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const LAYERS = ["kernel", "contracts", "adapters", "plugins", "hosts"] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer may import from the project (npm packages are always allowed). */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  kernel: ["kernel"],
  contracts: ["kernel", "contracts"],
  adapters: ["kernel", "contracts", "adapters"],
  plugins: ["kernel", "contracts", "adapters", "plugins"],
  hosts: ["kernel", "contracts", "adapters", "plugins", "hosts"],
};

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${path.sep}node_modules${path.sep}`));
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/**
 * A plugin may import another plugin only through that plugin's `index.ts`, so each plugin's
 * public surface is one file and its internals can change freely.
 */
function crossesPluginBoundary(from: string, target: string): boolean {
  const [fromLayer, fromPlugin] = from.split(path.sep);
  const [targetLayer, targetPlugin, ...rest] = target.split(path.sep);
  if (fromLayer !== "plugins" || targetLayer !== "plugins" || fromPlugin === targetPlugin) return false;
  return rest.join("/") !== "index.js";
}

/** Violations as `file → import` strings for every non-test file of the given layers. */
async function violations(layers: readonly Layer[], base = root): Promise<string[]> {
  const found: string[] = [];
  for (const layer of layers) {
    for (const file of await sourceFiles(path.join(base, layer))) {
      if (/\.test\.tsx?$/.test(file)) continue;
      const text = await readFile(file, "utf8");
      for (const match of text.matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2]!;
        if (!specifier.startsWith(".")) continue;
        const target = path.relative(base, path.resolve(path.dirname(file), specifier));
        const targetLayer = target.split(path.sep)[0] as Layer;
        if (!ALLOWED[layer].includes(targetLayer) || crossesPluginBoundary(path.relative(base, file), target)) {
          found.push(`${path.relative(base, file)} → ${specifier}`);
        }
      }
    }
  }
  return found;
}

test("kernel/ and contracts/ import nothing from adapters, plugins or hosts", async (t) => {
  t.deepEqual(await violations(["kernel", "contracts"]), []);
});

test("adapters and plugins never import hosts", async (t) => {
  t.deepEqual(await violations(["adapters", "plugins"]), []);
});

test("the checker reports a kernel file that imports a plugin", async (t) => {
  // Guards the guard, on a throw-away tree.
  const base = await mkdtemp(path.join(tmpdir(), "svc-imports-"));
  t.teardown(() => rm(base, { recursive: true, force: true }));
  for (const layer of LAYERS) await mkdir(path.join(base, layer), { recursive: true });
  await writeFile(path.join(base, "kernel", "bad.ts"), 'import { x } from "../plugins/rest/index.js";\n');
  await writeFile(path.join(base, "contracts", "ok.ts"), 'import type { y } from "../kernel/container.js";\n');
  t.deepEqual(await violations(["kernel", "contracts"], base), ["kernel/bad.ts → ../plugins/rest/index.js"]);
});

test("a plugin imports another plugin only through its index.ts", async (t) => {
  t.deepEqual(await violations(["plugins"]), []);
});

test("the checker reports a plugin reaching into another plugin's files", async (t) => {
  const base = await mkdtemp(path.join(tmpdir(), "svc-imports-"));
  t.teardown(() => rm(base, { recursive: true, force: true }));
  for (const dir of ["plugins/a/sub", "plugins/b"]) await mkdir(path.join(base, dir), { recursive: true });
  await writeFile(
    path.join(base, "plugins", "a", "sub", "uses-b.ts"),
    [
      'import { ok } from "../../b/index.js";',
      'import { internal } from "../../b/internal.js";',
      'import { sibling } from "../own.js";',
      'const lazy = await import("../../b/deep/file.js");',
    ].join("\n"),
  );
  t.deepEqual(await violations(["plugins"], base), [
    `${path.join("plugins", "a", "sub", "uses-b.ts")} → ../../b/internal.js`,
    `${path.join("plugins", "a", "sub", "uses-b.ts")} → ../../b/deep/file.js`,
  ]);
});
