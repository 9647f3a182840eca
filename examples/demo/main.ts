// The demo app that `npm start` runs: svc on the embedded database, persisted under .svc/data.
// It grows with the framework: each capability adds its piece here (see app.ts).
import { SvcApp } from "../../index.js";
import { demoAppOptions, withDemoPlugins } from "./app.js";
import { seedAdmin } from "./auth-setup.js";
import { seedFlags } from "./feature-flags.js";
import { webAppPlugin } from "../web/web-app-plugin.js";

const app = withDemoPlugins(new SvcApp(demoAppOptions(process.env))).register(seedAdmin).register(seedFlags).register(webAppPlugin());

const running = await app.start();
// Flag changes reach signed-in socket.io clients: `io(running.socketUrl, {auth: {token}})`.
app.kernel.pluginContext.logger.info(`Sockets on ${running.socketUrl} (sync:* events and feature-flag live updates)`);
