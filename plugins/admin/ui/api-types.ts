// The shapes of the admin API the UI relies on (docs/admin.md). The config, bulk, version and
// configuration answers are the server's own types (../admin-api-shapes.ts imports nothing, so the
// UI takes no server code with them); the rest are the parts of other answers the UI reads.

export type {
  AdminConfig,
  AdminConfigModel as AdminModel,
  AdminControl,
  AdminCustomScreen,
  AdminField,
  AdminPlatformTool as AdminTool,
  BulkResult,
  ConfigurationView as ConfigurationInfo,
  VersionInfo,
} from "../admin-api-shapes";

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
