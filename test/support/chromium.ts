// Chromium for the browser tests (playwright-core, the system's Chromium) and axe-core run in the
// page under test.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type Page } from "playwright-core";

/** The system's Chromium (playwright-core downloads no browser). */
export const CHROMIUM_PATH = "/usr/lib/chromium/chromium";

/** A headless Chromium; close it in the test's teardown. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox"] });
}

/** axe-core's script, run in the page under test (it runs in the browser, not in Node). */
const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
let axeSource: string | undefined;

/** The part of an axe-core result these tests read. */
interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * The page's accessibility problems of impact serious or critical, as axe-core (every rule it runs
 * by default) finds them in the page as it is now, one line each: rule, impact, what it asks, and
 * the elements. Empty when there is none.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol rather than added as a <script>: a page whose
  // Content-Security-Policy allows only its own scripts (the admin's) refuses an inline one.
  axeSource ??= readFileSync(AXE_SCRIPT, "utf8");
  await page.evaluate(axeSource);
  // A string: the page's `axe` global is not in the tests' types (they have no DOM).
  const violations = (await page.evaluate("axe.run(document).then((results) => results.violations)")) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help}, at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

/**
 * Fails the test with every serious or critical axe-core finding on the page as it is now.
 *
 * @example
 * await assertAccessible(t, page, "the sign-in page");
 */
export async function assertAccessible(t: { deepEqual(actual: unknown, expected: unknown, message?: string): void }, page: Page, where: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  t.deepEqual(violations, [], `axe-core on ${where}:\n${violations.join("\n")}`);
}
