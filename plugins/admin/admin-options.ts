import type { AdminModelConfig } from "../../contracts/admin-model-config.js";
import type { RoleResolver } from "../../contracts/role-resolver.js";
import type { AdminCustomScreen } from "./admin-api-shapes.js";
import type { AdminScript } from "./script-tasks.js";

/**
 * Role-based access (SPEC §2.6). Present (even `{}`), or turned on by a `ROLE_RESOLVER` bound in
 * the app, the admin checks permissions instead of `admin: true`: `admin:access` opens it, `<resource>:read|write|writeOwned` per model, and the
 * platform tools' own permissions. Users with `admin: true` keep every permission.
 */
export interface AdminAccessControl {
  /** Where permissions come from (default: the `ROLE_RESOLVER` bound in the app, else the roles collection). */
  readonly roleResolver?: RoleResolver;
}

/**
 * Options of `adminPlugin`.
 *
 * @example
 * adminPlugin({
 *   models: [{ model: Todo, routePath: "/todos", displayName: "Todos", listFields: ["title", "done", "created"] }],
 *   accessControl: {},
 *   scripts: { "recount-todos": { description: "Recounts todos", run: async ({ log }) => log("done") } },
 * });
 */
export interface AdminOptions {
  /** Models shown in the admin (models whose `modelRouter` has an `admin` option are added too). */
  readonly models: readonly AdminModelConfig[];
  /** Where the admin lives (default `/admin`). */
  readonly basePath?: string;
  readonly accessControl?: AdminAccessControl;
  readonly customScreens?: readonly AdminCustomScreen[];
  /** Named scripts an admin may run as background tasks (the Scripts tool). */
  readonly scripts?: Readonly<Record<string, AdminScript>>;
  /** The app's own name and version, shown by the Version tool (default: the OpenAPI info). */
  readonly appVersion?: { readonly name?: string; readonly version?: string };
  /** More environment variables the Configuration tool shows (values of secret-looking names are redacted). */
  readonly configurationKeys?: readonly string[];
  /** The admin web UI at `GET {basePath}` (on by default); `false` serves the API alone. */
  readonly ui?: false | AdminUiOptions;
}

/**
 * The admin web UI's settings.
 *
 * @example
 * adminPlugin({ models, ui: { appName: "Acme support" } });
 */
export interface AdminUiOptions {
  /** Shown in the page title and header (default: the OpenAPI `info.title`). */
  readonly appName?: string;
  /** Which sign-in routes the page uses (default: `jwt` when the auth plugin runs the JWT provider, else `session`). */
  readonly signIn?: "jwt" | "session";
  /**
   * The app's own screens (docs/admin.md "Custom screens"): paths of ES module scripts the app
   * serves from its own origin (`/admin-screens/reports.js`), loaded by the page in this order;
   * each registers screens with `globalThis.svcAdmin.registerScreen`. At most 20; each a path
   * from the root (`/...`, not `//`), without `..`, whitespace or `\`.
   */
  readonly screenScripts?: readonly string[];
}
