import type { Response, Router } from "express";
import { redirectedToTrailingSlash } from "../../contracts/trailing-slash.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { adminUiAssets, type AdminUiAsset } from "./admin-ui-bundle.js";
import { AdminErrors } from "./errors.js";

/** What the page tells the UI before anyone signs in. */
export interface AdminUiSettings {
  readonly basePath: string;
  /** Which sign-in routes the app has: the JWT provider's `/auth/login`, or session auth's `/api/auth/signin/email`. */
  readonly signIn: "jwt" | "session";
  /** Shown in the title and the header. */
  readonly appName: string;
  /** The app's screen scripts (`ui.screenScripts`), loaded by the page in this order. */
  readonly screenScripts: readonly string[];
}

/** How many screen scripts an admin may load (each is a request before a screen shows). */
export const MAX_SCREEN_SCRIPTS = 20;

// The page runs only its own script and stylesheet and talks only to this origin; nothing may frame
// it (clickjacking an admin's buttons) and no form may post elsewhere.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23234'/%3E%3Cpath d='M4 5h8M4 8h8M4 11h5' stroke='white' stroke-width='1.6'/%3E%3C/svg%3E";

/**
 * Serves the admin web UI (plugins/admin/ui/, a ra-core app) at `GET {basePath}/` (`{basePath}`
 * redirects there) and its files at `{basePath}/ui/<file>`. The page is public — it is only the sign-in form and the script; every
 * record it shows comes from the admin's authenticated routes. Its settings travel in a JSON
 * script element (data, never executed), so the Content-Security-Policy needs no inline script.
 *
 * @example
 * mountAdminUi(ctx.resolve(HTTP_ROUTER), { basePath: "/admin", signIn: "jwt", appName: "Todos", screenScripts: [] }, () => ctx.logger);
 */
export function mountAdminUi(http: Router, settings: AdminUiSettings, logger: () => SvcLogger): void {
  checkScreenScripts(settings.screenScripts);
  const assets = async (): Promise<ReadonlyMap<string, AdminUiAsset>> => {
    try {
      return await adminUiAssets();
    } catch (error) {
      logger().error(`The admin web UI could not be loaded: ${error instanceof Error ? error.message : String(error)}`, { stack: error instanceof Error ? error.stack : undefined });
      throw AdminErrors.UI_UNAVAILABLE();
    }
  };

  http.get(settings.basePath, async (req, res) => {
    // The page's URLs are relative to it (`ui/main.js`, and the UI's requests), so it keeps working
    // behind a proxy that serves the app under a prefix: /admin → /admin/.
    if (redirectedToTrailingSlash(req, res)) return;
    const files = await assets();
    secure(res);
    res.set("Cache-Control", "no-cache").type("html").send(page(settings, files.has("main.css")));
  });

  http.get(`${settings.basePath}/ui/:file`, async (req, res) => {
    const asset = (await assets()).get(req.params.file as string);
    if (!asset) throw HttpErrors.NOT_FOUND({ detail: `The admin UI has no file ${JSON.stringify(req.params.file)}` });
    secure(res);
    // Revalidated on every load (a new version of the app serves new files under the same names).
    res.set({ "Cache-Control": "no-cache", ETag: asset.etag, "Content-Type": asset.contentType });
    if (req.fresh) return void res.status(304).end();
    res.send(asset.body);
  });
}

/**
 * Screen scripts run as the admin page, with the signed-in admin's token at hand: each must be
 * this app's own file. A path from the root only (the page adds the proxy prefix): no scheme, no
 * `//host`, no `\` (browsers read `/\host` as `//host`), and no `.`/`..` segment (even
 * percent-encoded) that would climb out of the prefix.
 */
function checkScreenScripts(scripts: readonly unknown[]): void {
  if (!Array.isArray(scripts)) throw AdminErrors.INVALID_SCREEN_SCRIPT("must be an array of paths");
  if (scripts.length > MAX_SCREEN_SCRIPTS) throw AdminErrors.INVALID_SCREEN_SCRIPT(`lists ${scripts.length} scripts; at most ${MAX_SCREEN_SCRIPTS}`);
  const seen = new Set<string>();
  for (const script of scripts) {
    const problem = screenScriptProblem(script);
    if (problem) throw AdminErrors.INVALID_SCREEN_SCRIPT(`entry ${JSON.stringify(script) ?? String(script)} ${problem}`);
    if (seen.has(script as string)) throw AdminErrors.INVALID_SCREEN_SCRIPT(`lists ${JSON.stringify(script)} twice`);
    seen.add(script as string);
  }
}

function screenScriptProblem(script: unknown): string | undefined {
  if (typeof script !== "string") return "is not a string";
  if (script.length > 1000) return "is longer than 1000 characters";
  if (!script.startsWith("/") || script.startsWith("//")) return "must be a path from the app's root: a single / first, no scheme or host";
  if (/[\s\\\u0000-\u001f\u007f#]/.test(script)) return "must not contain whitespace, control characters, \\ or #";
  const path = script.split("?")[0]!;
  if (path.split("/").some((segment) => [".", ".."].includes(segment.replace(/%2e/gi, ".")))) return "must not have a . or .. segment";
  return undefined;
}

function secure(res: Response): void {
  res.set({ "Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY" });
}

function page(settings: AdminUiSettings, hasStyle: boolean): string {
  const title = escapeHtml(`${settings.appName} admin`);
  // `<` is escaped so no value can close the script element.
  const json = JSON.stringify(settings).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  <link rel="icon" href="${ICON}">${hasStyle ? `\n  <link rel="stylesheet" href="ui/main.css">` : ""}
  <script id="svc-admin-settings" type="application/json">${json}</script>
  <script type="module" src="ui/main.js"></script>
</head>
<body>
  <div id="root"></div>
  <noscript>The admin needs JavaScript.</noscript>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
