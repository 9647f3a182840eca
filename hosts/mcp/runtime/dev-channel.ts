import path from "node:path";
import { DEV_ROUTES_PATH, DEV_SERVER_FILE, findDevServer, type DevServerAnnouncement } from "./dev-server-file.js";
import { RuntimeToolErrors } from "./runtime-errors.js";

/**
 * The running development server of the project, or a `MCP_RUNTIME_NO_DEV_SERVER` error saying
 * how to start one.
 *
 * @example
 * const server = await requireDevServer("/work/app");
 */
export async function requireDevServer(cwd: string): Promise<DevServerAnnouncement> {
  const server = await findDevServer(cwd);
  if (!server) throw RuntimeToolErrors.NO_DEV_SERVER(cwd, path.join(cwd, DEV_SERVER_FILE));
  return server;
}

/**
 * Calls one of the server's `/__svc/dev` routes and answers its `data`.
 *
 * @example
 * const info = await callDevRoute<AppDescription>(server, "/info");
 */
export async function callDevRoute<T>(server: DevServerAnnouncement, route: string): Promise<T> {
  const url = new URL(`${DEV_ROUTES_PATH}${route}`, server.url).href;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw RuntimeToolErrors.DEV_CHANNEL_FAILED(url, error instanceof Error ? error.message : String(error));
  }
  if (!response.ok) {
    const hint = response.status === 404 ? " (the app does not register devRuntime())" : "";
    throw RuntimeToolErrors.DEV_CHANNEL_FAILED(url, `HTTP ${response.status}${hint}`);
  }
  return ((await response.json()) as { data: T }).data;
}
