import { countTokens, decode, encode } from "gpt-tokenizer";
import MiniSearch from "minisearch";
import type { DocSection, DocsLibrary } from "./docs-library.js";

/** What separates words: anything but letters, digits and `$` (`$in`); `svc_search_docs` is three words, as before. */
const NOT_WORD = /[^\p{L}\p{N}$]+/u;

/** SPEC §8: the default token budget of `svc_search_docs`. */
export const DEFAULT_TOKEN_LIMIT = 3000;

/** Between two sections of an answer. */
const SEPARATOR = "\n\n";
const SEPARATOR_TOKENS = countTokens(SEPARATOR);

/** What one search asks for (the `svc_search_docs` arguments). */
export interface DocsQuery {
  readonly queries: readonly string[];
  readonly packages?: readonly string[];
  readonly tokenLimit?: number;
}

/** The answer: the chunks that fit, in rank order, and how many tokens they took. */
export interface DocsSearchResult {
  readonly text: string;
  readonly tokens: number;
  readonly sections: readonly DocSection[];
  /** Matching sections left out because the budget was spent. */
  readonly omitted: number;
}

/**
 * A full-text index (minisearch) over the docs' heading sections. Built once per docs library;
 * each search ranks sections for every query, merges the ranks, and returns the best sections
 * whose rendered text fits the token budget, counted with the o200k tokenizer (gpt-tokenizer).
 *
 * @example
 * const search = new DocsSearch(library);
 * search.search({ queries: ["modelRouter permissions"], tokenLimit: 1500 }).text;
 */
export class DocsSearch {
  private readonly index = new MiniSearch<DocSection>({
    fields: ["title", "text", "file"],
    // MiniSearch splits on spaces and punctuation only, so a name in markdown code (`` `readMe` ``)
    // would be indexed with its backticks and a search for `readMe` would miss it.
    tokenize: (text) => text.split(NOT_WORD),
    storeFields: [],
    searchOptions: { boost: { title: 3, file: 1.5 }, prefix: true, fuzzy: 0.15, combineWith: "OR" },
  });

  // Each section's rendered size in tokens, counted once at load: the budget loop reads it for
  // every hit, and counting is the expensive part of a search.
  private readonly costs = new Map<number, number>();

  constructor(private readonly library: DocsLibrary) {
    this.index.addAll(library.sections);
    for (const section of library.sections) this.costs.set(section.id, countTokens(renderSection(section)));
  }

  /** Sections for the queries, best first, within the token budget. */
  search(query: DocsQuery): DocsSearchResult {
    const budget = query.tokenLimit ?? DEFAULT_TOKEN_LIMIT;
    const wanted = (query.packages ?? []).map(normalisePackage);
    const scores = new Map<number, number>();
    for (const text of query.queries) {
      for (const hit of this.index.search(text)) {
        const section = this.library.sections[hit.id as number]!;
        if (wanted.length && !section.packages.some((owned) => wanted.some((p) => owned === p || owned.startsWith(`${p}/`)))) continue;
        // A section that answers several of the queries outranks one that answers a single query well.
        scores.set(section.id, (scores.get(section.id) ?? 0) + hit.score);
      }
    }
    const ranked = [...scores].sort((a, b) => b[1] - a[1]).map(([id]) => this.library.sections[id]!);
    const chosen: DocSection[] = [];
    const parts: string[] = [];
    let tokens = 0;
    for (const section of ranked) {
      const rendered = renderSection(section);
      const cost = this.costs.get(section.id)! + (parts.length > 0 ? SEPARATOR_TOKENS : 0);
      if (tokens + cost <= budget) {
        chosen.push(section);
        parts.push(rendered);
        tokens += cost;
      } else if (chosen.length === 0) {
        // The best hit alone is over budget: give its head rather than nothing.
        const head = decode(encode(rendered).slice(0, Math.max(0, budget - 1)));
        chosen.push(section);
        parts.push(head);
        tokens += countTokens(head);
        break;
      }
    }
    // Tokens do not add up exactly: the tokenizer may cut the joined text differently where two
    // sections meet. The sum above picks the sections; the joined text is counted once and, in
    // the rare case it is over, the last sections go until it fits.
    let text = parts.join(SEPARATOR);
    tokens = countTokens(text);
    while (tokens > budget && parts.length > 1) {
      parts.pop();
      chosen.pop();
      text = parts.join(SEPARATOR);
      tokens = countTokens(text);
    }
    return { text, tokens, sections: chosen, omitted: ranked.length - chosen.length };
  }

  // Lower-cased index term -> how the docs spell it, built on the first "did you mean".
  private spellings?: Map<string, string>;

  /** Names close to `term` that occur in the docs, closest first, spelt as the docs spell them, each once (for "did you mean" answers). */
  suggest(term: string): string[] {
    this.spellings ??= spellingsOf(this.library.sections);
    const names = this.index
      .autoSuggest(term, { fuzzy: 0.3 })
      .flatMap((suggestion) => suggestion.terms)
      .filter(Boolean);
    const wanted = term.toLowerCase();
    const closest = [...new Set(names)].sort((a, b) => editDistance(wanted, a) - editDistance(wanted, b));
    return closest.slice(0, 5).map((name) => this.spellings!.get(name) ?? name);
  }
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

// The index lower-cases its terms; a suggestion should read useEntity, not useentity. The most
// frequent spelling of each word wins.
function spellingsOf(sections: readonly DocSection[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const section of sections) {
    for (const [word] of section.text.matchAll(/[\p{L}\p{N}_$]+/gu)) {
      const key = word.toLowerCase();
      const seen = counts.get(key) ?? new Map<string, number>();
      seen.set(word, (seen.get(word) ?? 0) + 1);
      counts.set(key, seen);
    }
  }
  return new Map([...counts].map(([key, seen]) => [key, [...seen].sort((a, b) => b[1] - a[1])[0]![0]]));
}

function renderSection(section: DocSection): string {
  return `<!-- ${section.file} › ${section.title} -->\n${section.text}`;
}

/**
 * The refusal of `names` that are not among the `known` packages (each normalised first), listing
 * the known ones; none when every name is known.
 *
 * @example
 * unknownPackageErrors(["bogus"], SVC_PACKAGES); // ["unknown package(s): bogus; known: svc, svc/sync, ..."]
 */
export function unknownPackageErrors(names: readonly string[], known: readonly string[]): string[] {
  const unknown = names.filter((name) => !known.includes(normalisePackage(name)));
  return unknown.length ? [`unknown package(s): ${unknown.join(", ")}; known: ${known.join(", ")}`] : [];
}

/** `sync`, `svc-sync` and `svc/sync` all name the sync package. */
export function normalisePackage(name: string): string {
  const trimmed = name.trim().toLowerCase().replace(/^@?svc[/-]?/, "");
  return trimmed ? `svc/${trimmed}` : "svc";
}
