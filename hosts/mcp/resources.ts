import type { McpServer } from "@modelcontextprotocol/server";
import { RESOURCE_DOCS, type DocsLibrary, type ResourceDocName } from "./docs-library.js";

const TITLES: Record<ResourceDocName, string> = {
  overview: "svc overview",
  api: "svc API reference",
  ui: "React bindings and the admin UI",
  rtk: "Client data access for non-synced routes",
  patterns: "svc patterns and conventions",
};

/** `svc://docs/<name>` for each resource document. */
export const resourceUri = (name: ResourceDocName): string => `svc://docs/${name}`;

/**
 * Registers the five read-only documentation resources (`svc://docs/{overview,api,ui,rtk,patterns}`),
 * served as markdown from the docs folder's `mcp/<name>.md`.
 *
 * @example
 * registerDocResources(server, library);
 */
export function registerDocResources(server: McpServer, library: DocsLibrary): void {
  for (const name of RESOURCE_DOCS) {
    const uri = resourceUri(name);
    server.registerResource(name, uri, { title: TITLES[name], description: firstParagraph(library.resources[name]), mimeType: "text/markdown" }, () => ({
      contents: [{ uri, mimeType: "text/markdown", text: library.resources[name] }],
    }));
  }
}

// Clients show descriptions in lists: a few lines, not the whole introduction.
const MAX_DESCRIPTION = 300;

function firstParagraph(markdown: string): string {
  const paragraph = (markdown.replace(/^#.*$/gm, "").trim().split(/\n{2,}/)[0] ?? "").replace(/\s+/g, " ");
  if (paragraph.length <= MAX_DESCRIPTION) return paragraph;
  // Whole sentences when they fill at least half the room, else whole words; "…" marks the cut.
  const room = paragraph.slice(0, MAX_DESCRIPTION - 1);
  const sentences = /^.*(?<!\b(?:e\.g|i\.e|etc|vs))[.!?](?= )/.exec(room)?.[0] ?? "";
  if (sentences.length >= MAX_DESCRIPTION / 2) return `${sentences} …`;
  return `${room.slice(0, room.lastIndexOf(" ")).replace(/[\s,;:—–-]+$/, "")}…`;
}
