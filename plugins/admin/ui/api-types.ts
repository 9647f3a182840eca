// The shapes of the admin API the UI relies on (docs/admin.md). Written out here rather than
// imported: the UI is a separate browser project and never imports server code.

export type FieldType = "string" | "number" | "boolean" | "date" | "objectid" | "array" | "object" | "mixed";

export interface AdminField {
  readonly type: FieldType;
  readonly required: boolean;
  readonly readOnly?: boolean;
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly ref?: string;
  readonly items?: AdminField;
  readonly fields?: Readonly<Record<string, AdminField>>;
  /** Strings: the schema's length limits. */
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Numbers: the schema's bounds. */
  readonly min?: number;
  readonly max?: number;
}

export interface AdminControl {
  readonly disabled: boolean;
}

export interface AdminModel {
  readonly name: string;
  readonly routePath: string;
  readonly displayName: string;
  readonly listFields: readonly string[];
  readonly defaultSort: string;
  readonly fields: Readonly<Record<string, AdminField>>;
  readonly actions: {
    readonly create: AdminControl;
    readonly update: AdminControl;
    readonly delete: AdminControl;
    readonly bulkUpdate: AdminControl;
    readonly bulkDelete: AdminControl;
  };
}

export interface AdminTool {
  readonly visible: boolean;
  readonly routePath: string;
}

export interface AdminCustomScreen {
  readonly name: string;
  readonly displayName: string;
}

export interface AdminConfig {
  readonly basePath: string;
  readonly models: readonly AdminModel[];
  readonly customScreens: readonly AdminCustomScreen[];
  readonly platformTools: {
    readonly scripts: AdminTool & { readonly run: AdminControl };
    readonly roles: AdminTool;
    readonly version: AdminTool;
    readonly configuration: AdminTool;
  };
}

/** One entry of an error answer's `errors`. */
export interface ApiErrorEntry {
  readonly status?: number;
  readonly code?: string;
  readonly title?: string;
  readonly detail?: string;
  readonly source?: { readonly pointer?: string; readonly parameter?: string };
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** A record as the admin's model routes answer it. */
export interface AdminRecord {
  readonly _id: string;
  readonly id: string;
  readonly _adminCapabilities?: { readonly update: boolean; readonly delete: boolean };
  readonly [field: string]: unknown;
}

/** `GET {basePath}/scripts`. */
export interface AdminScriptInfo {
  readonly name: string;
  readonly description?: string;
}

/** `GET {basePath}/tasks`, `GET {basePath}/tasks/:id`, the 202 of a run. */
export interface ScriptTask {
  readonly id: string;
  readonly script: string;
  readonly status: "running" | "succeeded" | "failed";
  readonly startedBy: string;
  readonly started: string;
  readonly finished?: string;
  readonly log: readonly string[];
  readonly error?: string;
}

/** `GET {basePath}/roles`. */
export interface RoleInfo {
  readonly name: string;
  readonly permissions: readonly string[];
  readonly description?: string;
}

/** `GET {basePath}/version`. */
export interface VersionInfo {
  readonly framework: { readonly name: string; readonly version: string };
  readonly app: { readonly name?: string; readonly version?: string };
  readonly runtime: { readonly node: string; readonly platform: string };
  readonly startedAt: string;
}

/** `GET {basePath}/configuration`. */
export interface ConfigurationInfo {
  readonly nodeEnv: string;
  readonly isProduction: boolean;
  readonly port: number;
  readonly host?: string;
  readonly websocketPort?: number;
  readonly enableApiDocsUi: boolean;
  readonly environment: Readonly<Record<string, string>>;
}

/** One record's outcome in a bulk answer, or in `ADMIN_BULK_REFUSED`'s `meta.results`. */
export interface BulkResult {
  readonly id: string;
  readonly status: number;
  readonly code?: string;
}
