import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * svc's package folder: the nearest ancestor of this file holding svc's `package.json`. Walking
 * up keeps one answer for the source tree (`hosts/mcp/`) and the published build
 * (`dist/hosts/mcp/`, whose docs SPEC §8 places at `../docs` from `dist/`).
 */
export function svcPackageRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "svc") return dir;
    if (path.dirname(dir) === dir) return path.resolve(here, "../..");
  }
}

/** svc's version, from its package.json (what the servers report as their version). */
export function svcVersion(): string {
  return (JSON.parse(readFileSync(path.join(svcPackageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/**
 * Where the documentation servers read markdown from: `SVC_MCP_DOCS_DIR` when set (relative to
 * the working directory), else the package's `docs/`.
 *
 * @example
 * resolveDocsDir({ SVC_MCP_DOCS_DIR: "./my-docs" }); // "/abs/cwd/my-docs"
 */
export function resolveDocsDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.SVC_MCP_DOCS_DIR?.trim();
  return configured ? path.resolve(configured) : path.join(svcPackageRoot(), "docs");
}
