// The JSON the admin's routes answer with, written once for both sides of the wire: the server
// builds these shapes and the web UI (plugins/admin/ui/, a browser project of its own) reads
// them. This file imports nothing, so the UI can take its types without taking server code.

/** One field in the admin config (SPEC §2.6), enough for a UI to render and edit it. */
export interface AdminField {
  readonly type: "string" | "number" | "boolean" | "date" | "objectid" | "array" | "object" | "mixed";
  readonly required: boolean;
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly ref?: string;
  /** Arrays: the element. */
  readonly items?: AdminField;
  /** Nested objects and subdocuments: their fields. */
  readonly fields?: Readonly<Record<string, AdminField>>;
  /** Set by the server, never written through the admin (ids, timestamps, `deleted`, the owner field, `readOnly` schema paths). */
  readonly readOnly?: true;
  /** Strings: the schema's `minlength` / `maxlength`. */
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Numbers: the schema's `min` / `max`. */
  readonly min?: number;
  readonly max?: number;
}

/** A control of the admin UI, and whether this caller may use it. */
export interface AdminControl {
  readonly disabled: boolean;
}

/** One model in `GET {basePath}/config`. */
export interface AdminConfigModel {
  readonly name: string;
  readonly routePath: string;
  readonly displayName: string;
  readonly listFields: readonly string[];
  readonly defaultSort: string;
  readonly fields: Readonly<Record<string, AdminField>>;
  /** What the caller may do; update and delete may still be refused per record (see `_adminCapabilities`). */
  readonly actions: {
    readonly create: AdminControl;
    readonly update: AdminControl;
    readonly delete: AdminControl;
    readonly bulkUpdate: AdminControl;
    readonly bulkDelete: AdminControl;
    /**
     * User models, when the app's auth administers passwords (the JWT provider):
     * `POST {routePath}/:id/password`, for callers holding `<resource>:write`.
     */
    readonly setPassword?: AdminControl;
    /**
     * User models, as `setPassword`: `POST {routePath}/:id/end-sign-ins` (every sign-in of the user
     * ends), and the user's devices, `GET {routePath}/:id/sign-ins` and `DELETE .../sign-ins/:signInId`.
     */
    readonly endSignIns?: AdminControl;
  };
}

/** A platform tool's visibility, and its controls. */
export interface AdminPlatformTool {
  readonly visible: boolean;
  readonly routePath: string;
}

/** A screen of the admin UI beyond the model pages, shown to callers holding `resource:action`. */
export interface AdminCustomScreen {
  readonly name: string;
  readonly displayName: string;
  readonly adminAccess: { readonly resource: string; readonly action: string };
}

/** The body of `GET {basePath}/config`, for one caller. */
export interface AdminConfig {
  readonly basePath: string;
  readonly models: readonly AdminConfigModel[];
  readonly customScreens: readonly AdminCustomScreen[];
  readonly platformTools: {
    readonly scripts: AdminPlatformTool & { readonly run: AdminControl };
    readonly roles: AdminPlatformTool;
    readonly version: AdminPlatformTool;
    readonly configuration: AdminPlatformTool;
  };
}

/** One record's outcome in a bulk answer, or in `ADMIN_BULK_REFUSED`'s `meta.results`. */
export interface BulkResult {
  readonly id: string;
  readonly status: number;
  readonly code?: string;
}

/** What the Version tool shows (`GET {basePath}/version`). */
export interface VersionInfo {
  readonly framework: { readonly name: string; readonly version: string };
  readonly app: { readonly name?: string; readonly version?: string };
  readonly runtime: { readonly node: string; readonly platform: string };
  /** When this process started (the build that is running). */
  readonly startedAt: string;
}

/** What the Configuration tool shows (`GET {basePath}/configuration`). */
export interface ConfigurationView {
  readonly nodeEnv: string;
  readonly isProduction: boolean;
  readonly port: number;
  readonly host?: string;
  readonly websocketPort?: number;
  readonly enableApiDocsUi: boolean;
  /** The variables that are set, secrets as `[REDACTED]`. */
  readonly environment: Readonly<Record<string, string>>;
}
