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

// System fonts, one accent (dark enough for white text on it: 4.5:1 and up), and everything
// wrapping, so a phone's width needs no sideways scrolling.
const STYLE = `:root { --accent: #17695a; --line: #c8ccd0; --muted: #595f66; color-scheme: light; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f23; max-width: 42rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
a { color: var(--accent); }
code { white-space: nowrap; font-size: .9em; background: #f1f3f4; padding: 0 .25rem; border-radius: .25rem; }
input, button { font: inherit; }
input:not([type=checkbox]) { padding: .45rem .6rem; border: 1px solid var(--line); border-radius: .4rem; min-width: 0; }
input[type=checkbox] { width: 1.2rem; height: 1.2rem; margin: 0; accent-color: var(--accent); flex: none; }
button { padding: .4rem .85rem; border: 1px solid var(--accent); border-radius: .4rem; background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #b3261e; border-color: #b3261e; }
button:disabled { opacity: .6; cursor: progress; }
:focus-visible { outline: 3px solid #2a7de1; outline-offset: 2px; }
.intro { background: #f3f8f6; border-left: 4px solid var(--accent); padding: .5rem 1rem; border-radius: .4rem; }
.intro p { margin: .25rem 0; }
.intro ul { margin: .25rem 0; padding-left: 1.2rem; }
.sign-in { display: grid; gap: .75rem; max-width: 22rem; margin: 1.25rem 0; }
.sign-in label { display: grid; gap: .25rem; font-weight: 600; }
.sign-in input { font-weight: normal; }
.sign-in .actions { display: flex; gap: .5rem; }
.notice { background: #f3f8f6; border-left: 4px solid var(--accent); padding: .5rem .75rem; border-radius: .4rem; }
button.link { background: none; border: none; padding: 0; color: var(--accent); text-decoration: underline; justify-self: start; }
.error, .warning { background: #fdecea; color: #8a1c1c; border-left: 4px solid #c62828; padding: .5rem .75rem; border-radius: .4rem; }
header { display: flex; gap: .5rem 1rem; align-items: center; flex-wrap: wrap; }
header h1 { margin: 0; margin-right: auto; }
[data-testid=user] { color: var(--muted); overflow-wrap: anywhere; }
.hint { color: var(--muted); margin: .5rem 0; }
.status { display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; margin: .75rem 0; }
.status span { padding: .1rem .6rem; border-radius: 1rem; background: #eceff1; font-size: .9rem; }
.status .warning { border-radius: .4rem; flex-basis: 100%; }
.status button { margin-left: auto; }
form[data-testid=new-todo], form.edit { display: flex; gap: .5rem; flex: 1; min-width: 0; }
form[data-testid=new-todo] { margin: .75rem 0; }
form input:not([type=checkbox]) { flex: 1; }
.todos { list-style: none; padding: 0; margin: 0; }
.todos li { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; padding: .5rem 0; border-bottom: 1px solid #e6e8ea; }
.todos [data-testid=title] { flex: 1; overflow-wrap: anywhere; }
/* Not by opacity: faded text and buttons would fall below readable contrast. */
.todos .pending [data-testid=title] { font-style: italic; }
.todos small { color: var(--muted); flex-basis: 100%; padding-left: 1.7rem; }
.done { text-decoration: line-through; color: var(--muted); }
.conflicts { border: 2px solid #c62828; padding: .5rem 1rem; border-radius: .5rem; margin: .75rem 0; }
.conflicts p { margin: .25rem 0 .5rem; overflow-wrap: anywhere; }
.conflicts div + div { border-top: 1px solid #e6e8ea; padding-top: .5rem; }
.conflicts button { margin: 0 .5rem .5rem 0; }
.devices { margin: 1.5rem 0 0; }
.devices summary { cursor: pointer; font-weight: 600; }
.devices ul { list-style: none; padding: 0; margin: 0; }
.devices li { display: flex; gap: .5rem; align-items: center; justify-content: space-between; flex-wrap: wrap; padding: .5rem 0; border-bottom: 1px solid #e6e8ea; }
.devices li span { display: grid; min-width: 0; overflow-wrap: anywhere; }
.devices small { color: var(--muted); }
footer { margin-top: 2.5rem; padding-top: .75rem; border-top: 1px solid #e6e8ea; color: var(--muted); font-size: .9rem; }
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
