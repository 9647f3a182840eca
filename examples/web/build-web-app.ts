import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Where the bundle goes: under the git-ignored `.svc/` of the working directory. */
export const WEB_APP_DIR = path.resolve(".svc/web");

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>svc todos</title>
  <link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23287'/%3E%3Cpath d='M4 8l3 3 5-6' stroke='white' stroke-width='2' fill='none'/%3E%3C/svg%3E">
  <link rel="stylesheet" href="/app/style.css">
</head>
<body>
  <div id="root"></div>
  <script type="module" src="/app/main.js"></script>
</body>
</html>
`;

const STYLE = `body { font: 16px/1.4 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
header, .status, form { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; margin: .5rem 0; }
.status span { padding: .1rem .5rem; border-radius: 1rem; background: #eee; }
ul { list-style: none; padding: 0; }
li { display: flex; gap: .5rem; align-items: center; padding: .25rem 0; }
li.pending { opacity: .7; }
.done { text-decoration: line-through; }
.conflicts { border: 2px solid #d33; padding: .5rem 1rem; border-radius: .5rem; }
`;

/**
 * Bundles the web demo (examples/web/main.tsx) with esbuild into `outDir` (index.html, style.css,
 * main.js): React in production mode, for browsers.
 *
 * @example
 * await buildWebApp(); // then serve .svc/web at /app
 */
export async function buildWebApp(outDir = WEB_APP_DIR): Promise<string> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(here, "main.tsx")],
    outdir: outDir,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    sourcemap: true,
    minify: true,
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  await writeFile(path.join(outDir, "index.html"), PAGE);
  await writeFile(path.join(outDir, "style.css"), STYLE);
  return outDir;
}
