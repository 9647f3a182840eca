import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The admin web UI's source entry (a browser project of its own: plugins/admin/ui/). */
const ENTRY = fileURLToPath(new URL("./ui/main.tsx", import.meta.url));

/** The bundle's files by name (`main.js`, `main.css`). */
export type AdminUiFiles = ReadonlyMap<string, Uint8Array>;

/**
 * Bundles the admin web UI with esbuild: React in production mode, for browsers, one script and
 * one stylesheet, no source maps (the package ships the bundle; its source is in the repository).
 * esbuild is a development dependency, imported only here: the published package carries the
 * bundle `npm run build` wrote, and an app built from it never calls this.
 *
 * @example
 * const files = await buildAdminUi(); // files.get("main.js")
 */
export async function buildAdminUi(): Promise<AdminUiFiles> {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [ENTRY],
    outdir: "/admin-ui",
    write: false,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    minify: true,
    legalComments: "none",
    // Failures are thrown with every message (the caller logs or prints them), not printed twice.
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  return new Map(result.outputFiles.map((file) => [path.basename(file.path), file.contents]));
}

/** Writes the bundle into `outDir` (what `npm run build` ships in `dist/plugins/admin/ui-bundle/`). */
export async function writeAdminUi(outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  for (const [name, contents] of await buildAdminUi()) await writeFile(path.join(outDir, name), contents);
}

// `node --import=tsx plugins/admin/admin-ui-build.ts <outDir>`: the package build's last step.
if (import.meta.url === `file://${process.argv[1]}`) {
  const outDir = process.argv[2];
  if (!outDir) throw new Error("usage: admin-ui-build.ts <outDir>");
  await writeAdminUi(path.resolve(outDir));
}
