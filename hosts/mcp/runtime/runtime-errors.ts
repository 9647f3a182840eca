import { defineErrors } from "../../../kernel/errors.js";

/**
 * Why a `svc-mcp-local` runtime tool could not answer. Each message says what to start, set or
 * change; the tools return them as tool errors (`isError: true`, text `<code>: <message>`).
 *
 * @example
 * throw RuntimeToolErrors.EVAL_DISABLED();
 */
export const RuntimeToolErrors = defineErrors("MCP_RUNTIME", {
  NO_DEV_SERVER: {
    message: (cwd: string, file: string) =>
      `No running svc development server for ${cwd} (no live ${file}). Start it with \`npm start\` in that directory; ` +
      `its app must register devRuntime() from svc/dev-runtime and call announce() once listening.`,
  },
  DEV_CHANNEL_FAILED: {
    message: (url: string, reason: string) => `The development server's debug channel ${url} did not answer: ${reason}. Is the server still running?`,
  },
  NO_DATABASE: {
    message: (cwd: string) =>
      `No development database for ${cwd}: set DB_URI for svc-mcp-local, or start the development server (\`npm start\`) ` +
      `so its embedded database is reachable.`,
  },
  DATABASE_UNREACHABLE: {
    message: (where: string, reason: string) => `Could not read the database at ${where}: ${reason}`,
  },
  INVALID_ARGUMENT: { message: (reason: string) => `Invalid argument: ${reason}` },
  WRITE_REFUSED: {
    message: (what: string) => `${what} is refused: database_query only reads (find and aggregate without $out, $merge or server-side JavaScript).`,
  },
  NO_LOG_FILE: {
    message: (file: string) =>
      `No log file at ${file}. The app writes logs/combined.log and logs/error.log only after setupLogging() ` +
      `(from svc) is called in its main module outside tests; or point SVC_LOG_DIR at the directory it writes to.`,
  },
  NO_CLIENT_STATE: {
    message: (url: string) =>
      `No browser client has reported its state to ${url}. Open the app in a browser with reportClientState() ` +
      `(svc/dev-runtime/client) running, or drive one with the navigate tool.`,
  },
  EVAL_DISABLED: {
    message: () => "evaluate is disabled: start svc-mcp-local with SVC_MCP_EVAL=1 (or true) to allow running code in the development server.",
  },
  EVAL_IN_PRODUCTION: {
    message: (where: string) => `evaluate is refused in production (${where} has NODE_ENV=production).`,
  },
  NO_INSPECTOR: {
    message: (tried: string) =>
      `No Node inspector to connect to (${tried}). Start the development server with the inspector on, ` +
      `e.g. \`NODE_OPTIONS=--inspect npm start\`, or pass inspectorUrl (ws://...).`,
  },
  INSPECTOR_FAILED: { message: (url: string, reason: string) => `The Node inspector at ${url} failed: ${reason}` },
  NO_BROWSER: {
    message: (reason: string) =>
      `No browser to drive: ${reason}. Install chromium (/usr/lib/chromium/chromium), set SVC_MCP_CHROMIUM to its path, ` +
      `or set SVC_MCP_CDP_URL to a running browser's DevTools endpoint (chromium --remote-debugging-port=9222).`,
  },
  NAVIGATION_FAILED: { message: (url: string, reason: string) => `Could not load ${url}: ${reason}` },
});
