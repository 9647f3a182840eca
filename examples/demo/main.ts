// The demo app that `npm start` runs: svc on the embedded database, persisted under .svc/data.
// It grows with the framework: each capability adds its piece here (see app.ts).
import { setupLogging, SvcApp } from "../../index.js";
import { devRuntime } from "../../hosts/mcp/runtime/index.js";
import { demoAppOptions, withDemoPlugins } from "./app.js";
import { seedAdmin } from "./auth-setup.js";
import { seedFlags } from "./feature-flags.js";
import { webAppPlugin } from "../web/web-app-plugin.js";

// Log files under logs/ (combined.log, error.log) for svc-mcp-local's read_logs and last_error.
setupLogging();
// The development debug channel svc-mcp-local's runtime tools use (nothing in production).
const dev = devRuntime();
// new SvcApp() (a malformed PORT) and start() log their failure as one error line: exit 1 without
// Node printing it again as an uncaught exception.
const started = await (async () => {
  const app = withDemoPlugins(new SvcApp(demoAppOptions(process.env))).register(seedAdmin).register(seedFlags).register(webAppPlugin()).register(dev);
  return { app, running: await app.start() };
})().catch(() => undefined);

if (started === undefined) {
  process.exitCode = 1;
} else {
  const { app, running } = started;
  await dev.announce(running);
  // Flag changes reach signed-in socket.io clients: `io(running.socketUrl, {auth: {token}})`.
  app.kernel.pluginContext.logger.info(`Sockets on ${running.socketUrl} (sync:* events and feature-flag live updates)`);
  const docsUi = app.kernel.config.enableApiDocsUi ? `, the API docs at ${running.url}/docs` : "";
  app.kernel.pluginContext.logger.info(`Open ${running.url}/app for the web demo (sign up, then add todos)${docsUi}, the admin at ${running.url}/admin`);
}
