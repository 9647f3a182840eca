import type { DocSection, DocsLibrary } from "../docs-library.js";
import type { DocsSearch } from "../docs-search.js";

// At most this many sections per answer: the definition and its closest uses.
const MAX_SECTIONS = 4;

/**
 * `svc_get_component_docs`: the documentation of one named part of svc — a function, class,
 * hook, plugin or option (`modelRouter`, `SvcApp`, `useEntity`, `adminPlugin`, `queryFilter`).
 * Sections are ranked by the name in their heading, then by how often the name occurs (as a
 * whole word, case-sensitive first). Unknown names answer with close words from the docs.
 *
 * @example
 * componentDocs(library, search, "modelRouter");
 */
export function componentDocs(library: DocsLibrary, search: DocsSearch, component: string): { text: string } | { errors: string[] } {
  const name = component.trim();
  if (!name) return { errors: ["component must not be empty"] };
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const ranked = rank(library.sections, new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`, "g"));
  const found = ranked.length ? ranked : rank(library.sections, new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`, "gi"));
  if (!found.length) {
    const suggestions = search.suggest(name);
    return { errors: [`No documentation mentions "${name}".${suggestions.length ? ` Close words in the docs: ${suggestions.join(", ")}.` : ""} Try svc_search_docs.`] };
  }
  const chosen = found.slice(0, MAX_SECTIONS);
  return { text: chosen.map((section) => `<!-- ${section.file} › ${section.title} -->\n${section.text}`).join("\n\n") + "\n" };
}

function rank(sections: readonly DocSection[], pattern: RegExp): DocSection[] {
  const scored: { section: DocSection; score: number }[] = [];
  for (const section of sections) {
    const hits = section.text.match(pattern)?.length ?? 0;
    if (!hits) continue;
    pattern.lastIndex = 0;
    const inTitle = pattern.test(section.title);
    pattern.lastIndex = 0;
    // The resource documents (mcp/) are written as references: prefer them on a tie.
    scored.push({ section, score: (inTitle ? 100 : 0) + Math.min(hits, 20) + (section.file.startsWith("mcp/") ? 0.5 : 0) });
  }
  return scored.sort((a, b) => b.score - a.score).map((entry) => entry.section);
}
