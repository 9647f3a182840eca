import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildAdminUi } from "./admin-ui-build.js";

/** One file of the admin web UI, ready to send. */
export interface AdminUiAsset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
}

const CONTENT_TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

/** Where `npm run build` puts the bundle: beside this module in `dist/`. Absent in a source checkout. */
const PREBUILT = fileURLToPath(new URL("./ui-bundle/", import.meta.url));

let loading: Promise<ReadonlyMap<string, AdminUiAsset>> | undefined;

/**
 * The admin web UI's files, loaded once per process: the bundle the package build wrote, or —
 * running from source (the repository's tests, `npm start`) — bundled in memory on first use, so
 * nothing is written to disk and parallel test processes never race on one directory. A failed
 * load is retried by the next request rather than remembered.
 *
 * @example
 * const asset = (await adminUiAssets()).get("main.js");
 */
export function adminUiAssets(): Promise<ReadonlyMap<string, AdminUiAsset>> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(): Promise<ReadonlyMap<string, AdminUiAsset>> {
  const files = (await prebuilt()) ?? (await buildAdminUi());
  const assets = new Map<string, AdminUiAsset>();
  for (const [name, contents] of files) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!contentType) continue;
    const body = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);
    assets.set(name, { body, contentType, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` });
  }
  return assets;
}

async function prebuilt(): Promise<Map<string, Uint8Array> | undefined> {
  let names: string[];
  try {
    names = await readdir(PREBUILT);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(path.join(PREBUILT, name))] as const)));
}
