// The page's settings, written by the server into <script id="svc-admin-settings"> as JSON (never
// executed: the CSP allows no inline script, and JSON cannot run).

export interface AdminSettings {
  /** Where the admin API lives, e.g. `/admin`. */
  readonly basePath: string;
  /** Which of the app's sign-in routes to use. */
  readonly signIn: "jwt" | "session";
  readonly appName: string;
  /**
   * What comes before the app's own paths in this page's URL: "" when the app is at the root of
   * its origin, "/acme" when a proxy serves it under /acme (the page at /acme/admin/). The
   * server cannot know it, the browser can: every API request is made under it.
   */
  readonly prefix: string;
  /** The app's screen scripts, paths from its root (`/admin-screens/reports.js`), loaded in this order. */
  readonly screenScripts: readonly string[];
}

const BASE_PATH = /^\/[A-Za-z0-9/_.-]*$/;
const MAX_SCREEN_SCRIPTS = 20;

/**
 * The server checked these already (admin-ui-route.ts); checked again because each one runs as
 * this page: a path of this origin only — no `//host`, no `\` (read as `/`), no `.`/`..` segment
 * that would leave the prefix.
 */
function isScreenScript(script: unknown): script is string {
  if (typeof script !== "string" || script.length > 1000 || !script.startsWith("/") || script.startsWith("//")) return false;
  if (/[\s\\\u0000-\u001f\u007f#]/.test(script)) return false;
  return !script
    .split("?")[0]!
    .split("/")
    .some((segment) => [".", ".."].includes(segment.replace(/%2e/gi, ".")));
}

/**
 * Reads and checks the settings. A page with missing or malformed settings throws: better a clear
 * error than requests going to a guessed address.
 */
export function readSettings(doc: Document = document, pathname: string = location.pathname): AdminSettings {
  const text = doc.getElementById("svc-admin-settings")?.textContent;
  if (!text) throw new Error("The admin page has no settings (#svc-admin-settings)");
  const raw = JSON.parse(text) as Record<string, unknown>;
  const { basePath, signIn, appName, screenScripts = [] } = raw;
  if (typeof basePath !== "string" || !BASE_PATH.test(basePath)) throw new Error("The admin settings' basePath is not a path");
  if (signIn !== "jwt" && signIn !== "session") throw new Error('The admin settings\' signIn is neither "jwt" nor "session"');
  if (!Array.isArray(screenScripts) || screenScripts.length > MAX_SCREEN_SCRIPTS || !screenScripts.every(isScreenScript)) {
    throw new Error("The admin settings' screenScripts are not paths of this origin");
  }
  const base = basePath.replace(/\/+$/, "");
  const page = `${base}/`;
  return {
    basePath: base,
    signIn,
    appName: typeof appName === "string" && appName.trim() !== "" ? appName.trim() : "Admin",
    prefix: pathname.endsWith(page) ? pathname.slice(0, -page.length) : "",
    screenScripts: [...new Set(screenScripts)],
  };
}
