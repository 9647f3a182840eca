import type { DocsLibrary } from "../docs-library.js";

export interface UpgradeGuideArgs {
  /** A guide's name (its file name without `.md`) or words of its title. */
  guide?: string;
}

/**
 * `svc_get_upgrade_guide`: serves `docs/upgrades/*.md`. Without `guide`, the list of guides with
 * their titles and the first paragraph of each; with it, the whole matching guide.
 *
 * @example
 * upgradeGuide(library, { guide: "setup-server-to-svc-app" });
 */
export function upgradeGuide(library: DocsLibrary, args: UpgradeGuideArgs): { text: string } | { errors: string[] } {
  const guides = [...library.files].filter(([file]) => file.startsWith("upgrades/")).map(([file, text]) => ({
    name: file.slice("upgrades/".length, -".md".length),
    title: /^#\s+(.+)$/m.exec(text)?.[1] ?? file,
    summary: text.replace(/^#.*$/m, "").trim().split(/\n{2,}/)[0] ?? "",
    text,
  }));
  if (guides.length === 0) return { errors: [`No upgrade guides in ${library.dir}/upgrades`] };
  if (!args.guide?.trim()) {
    return { text: `# Upgrade guides\n\n${guides.map((guide) => `- **${guide.name}** — ${guide.title}\n  ${guide.summary.replace(/\n/g, " ")}`).join("\n")}\n\nAsk for one with { "guide": "<name>" }.\n` };
  }
  const wanted = args.guide.trim().toLowerCase();
  const exact = guides.find((guide) => guide.name === wanted);
  const words = wanted.split(/[\s-]+/).filter(Boolean);
  const match = exact ?? guides.find((guide) => words.every((word) => `${guide.name} ${guide.title}`.toLowerCase().includes(word)));
  if (!match) return { errors: [`No upgrade guide matches "${args.guide}". Guides: ${guides.map((guide) => guide.name).join(", ")}`] };
  return { text: match.text };
}
