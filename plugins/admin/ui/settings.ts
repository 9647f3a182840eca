// The page's settings, written by the server into <script id="svc-admin-settings"> as JSON (never
// executed: the CSP allows no inline script, and JSON cannot run).

export interface AdminSettings {
  /** Where the admin API lives, e.g. `/admin`. */
  readonly basePath: string;
  /** Which of the app's sign-in routes to use. */
  readonly signIn: "jwt" | "session";
  readonly appName: string;
}

const BASE_PATH = /^\/[A-Za-z0-9/_.-]*$/;

/**
 * Reads and checks the settings. A page with missing or malformed settings throws: better a clear
 * error than requests going to a guessed address.
 */
export function readSettings(doc: Document = document): AdminSettings {
  const text = doc.getElementById("svc-admin-settings")?.textContent;
  if (!text) throw new Error("The admin page has no settings (#svc-admin-settings)");
  const raw = JSON.parse(text) as Record<string, unknown>;
  const { basePath, signIn, appName } = raw;
  if (typeof basePath !== "string" || !BASE_PATH.test(basePath)) throw new Error("The admin settings' basePath is not a path");
  if (signIn !== "jwt" && signIn !== "session") throw new Error('The admin settings\' signIn is neither "jwt" nor "session"');
  return {
    basePath: basePath.replace(/\/+$/, ""),
    signIn,
    appName: typeof appName === "string" && appName.trim() !== "" ? appName.trim() : "Admin",
  };
}
