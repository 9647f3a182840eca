import { createRequire } from "node:module";
import type { VersionInfo } from "./admin-api-shapes.js";

/**
 * The framework's package name and version (read from its own `package.json`, wherever it is
 * installed), the app's name and version, the Node.js runtime and when the process started.
 *
 * @example
 * versionInfo({ name: "my app", version: "1.2.3" }).framework.version; // "57.2.0"
 */
export function versionInfo(app: { readonly name?: string; readonly version?: string }): VersionInfo {
  // The package's own export of its manifest resolves from source and from dist alike.
  const manifest = createRequire(import.meta.url)("svc/package.json") as { name: string; version: string };
  return {
    framework: { name: manifest.name, version: manifest.version },
    app: { ...(app.name ? { name: app.name } : {}), ...(app.version ? { version: app.version } : {}) },
    runtime: { node: process.version, platform: process.platform },
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
  };
}
