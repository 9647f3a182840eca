import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { McpDocsErrors } from "./errors.js";

/** The five resource documents (SPEC §4.7), served as `svc://docs/<name>` from `mcp/<name>.md`. */
export const RESOURCE_DOCS = ["overview", "api", "ui", "rtk", "patterns"] as const;
export type ResourceDocName = (typeof RESOURCE_DOCS)[number];

/** One heading's section of a markdown file: the unit search ranks and returns. */
export interface DocSection {
  readonly id: number;
  /** Path relative to the docs folder, with `/` separators (`mcp/api.md`). */
  readonly file: string;
  /** The headings leading to the section, outermost first, joined with ` › `. */
  readonly title: string;
  /** The section's markdown, its heading line included. */
  readonly text: string;
  /** The svc packages the file documents (`svc`, `svc/sync`...), for `packages` filters. */
  readonly packages: readonly string[];
}

/** Everything the documentation servers read from the docs folder, loaded once at start. */
export interface DocsLibrary {
  readonly dir: string;
  readonly resources: Readonly<Record<ResourceDocName, string>>;
  readonly sections: readonly DocSection[];
  /** Every markdown file by relative path (upgrade guides included). */
  readonly files: ReadonlyMap<string, string>;
}

/** The svc packages the docs are filed under: what `svc_search_docs`'s `packages` may name. */
export const SVC_PACKAGES = ["svc", "svc/sync", "svc/sync/client", "svc/sync/react", "svc/admin", "svc/comms", "svc/feature-flags", "svc/mcp", "svc/testing", "svc/embedded-mongo"] as const;

// Which package a page documents, by file name; anything unlisted is the core `svc` package.
const PACKAGES_BY_FILE: Readonly<Record<string, readonly (typeof SVC_PACKAGES)[number][]>> = {
  "sync.md": ["svc/sync"],
  "sync-client.md": ["svc/sync/client"],
  "sync-react.md": ["svc/sync/react"],
  "admin.md": ["svc/admin"],
  "comms.md": ["svc/comms"],
  "feature-flags.md": ["svc/feature-flags"],
  "embedded-mongo.md": ["svc/embedded-mongo"],
  "testing.md": ["svc/testing"],
  "mcp.md": ["svc/mcp"],
  "mcp-servers.md": ["svc/mcp"],
  "mcp-runtime-tools.md": ["svc/mcp"],
  "mcp/ui.md": ["svc/sync/react", "svc/admin"],
  "mcp/rtk.md": ["svc", "svc/sync/client"],
};

// Sections longer than this are cut at paragraph breaks so one hit never swallows a search budget.
const MAX_SECTION_CHARS = 2400;

/**
 * Reads the docs folder: the five resource documents (all required) and every markdown file,
 * split into heading sections for search.
 *
 * @example
 * const library = await loadDocsLibrary(resolveDocsDir());
 * library.resources.overview; // the markdown of docs/mcp/overview.md
 */
export async function loadDocsLibrary(dir: string): Promise<DocsLibrary> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw McpDocsErrors.DOCS_DIR_MISSING(dir);
  const files = new Map<string, string>();
  for (const file of await markdownFiles(dir)) files.set(file, await readFile(path.join(dir, file), "utf8"));
  const resources = {} as Record<ResourceDocName, string>;
  for (const name of RESOURCE_DOCS) {
    const text = files.get(`mcp/${name}.md`);
    if (text === undefined) throw McpDocsErrors.RESOURCE_DOC_MISSING(path.join(dir, "mcp", `${name}.md`));
    resources[name] = text;
  }
  const sections: DocSection[] = [];
  for (const [file, text] of files) {
    const packages = PACKAGES_BY_FILE[file] ?? PACKAGES_BY_FILE[path.posix.basename(file)] ?? ["svc"];
    for (const piece of splitSections(text)) sections.push({ id: sections.length, file, packages, ...piece });
  }
  return { dir, resources, sections, files };
}

async function markdownFiles(root: string, sub = ""): Promise<string[]> {
  const entries = await readdir(path.join(root, sub), { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const relative = sub ? `${sub}/${entry.name}` : entry.name;
    if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules") found.push(...(await markdownFiles(root, relative)));
    else if (entry.isFile() && entry.name.endsWith(".md")) found.push(relative);
  }
  return found;
}

/** Splits markdown at headings (never inside a fenced code block), keeping the heading trail. */
export function splitSections(markdown: string): { title: string; text: string }[] {
  const pieces: { title: string; text: string }[] = [];
  const trail: string[] = [];
  let lines: string[] = [];
  let inFence = false;
  const flush = (): void => {
    const text = lines.join("\n").trim();
    if (text) for (const part of cutLong(text)) pieces.push({ title: trail.filter(Boolean).join(" › ") || "(top)", text: part });
    lines = [];
  };
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^(#{1,4})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]!.length;
      trail.length = level - 1;
      trail[level - 1] = heading[2]!;
    }
    lines.push(line);
  }
  flush();
  return pieces;
}

function cutLong(text: string): string[] {
  if (text.length <= MAX_SECTION_CHARS) return [text];
  const parts: string[] = [];
  let current = "";
  let inFence = false;
  for (const paragraph of text.split(/\n{2,}/)) {
    const fences = (paragraph.match(/^\s*(```|~~~)/gm) ?? []).length;
    // A code block is never cut in two: a paragraph inside an open fence stays with it.
    if (current && !inFence && current.length + paragraph.length > MAX_SECTION_CHARS) {
      parts.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${paragraph}` : paragraph;
    if (fences % 2 === 1) inFence = !inFence;
  }
  if (current) parts.push(current);
  return parts;
}
