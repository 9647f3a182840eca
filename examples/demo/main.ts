// The demo app that `npm start` runs: svc on the embedded database, persisted under .svc/data.
// It grows with the framework: each capability adds its piece here.
import { HTTP_ROUTER, SvcApp, type SvcPlugin } from "../../index.js";
import { todoRouter } from "./todo.js";
import { demoAuth, demoAuthEnvironment, seedAdmin } from "./auth-setup.js";
import { demoFeatureFlags, seedFlags } from "./feature-flags.js";

/** A tiny plugin showing the shape every capability has. */
const hello: SvcPlugin = {
  name: "hello",
  dependsOn: ["database"],
  start(ctx) {
    ctx.resolve(HTTP_ROUTER).get("/", (_req, res) => {
      res.json({ data: { name: "svc demo", docs: "/openapi.json" } });
    });
    ctx.openapi.addOperation("get", "/", {
      summary: "Describe the demo app",
      tags: ["demo"],
      responses: { 200: { description: "The app's name and where its API documentation lives" } },
    });
  },
};

const app = new SvcApp({
  database: { dbPath: ".svc/data", dbName: "svc_demo" },
  info: { title: "svc demo", version: "1.0.0" },
  env: demoAuthEnvironment(process.env),
})
  .register(hello)
  .register(todoRouter)
  .register(demoAuth)
  .register(seedAdmin)
  .register(demoFeatureFlags)
  .register(seedFlags);

const running = await app.start();
// Flag changes reach signed-in socket.io clients: `io(running.socketUrl, {auth: {token}})`.
app.kernel.pluginContext.logger.info(`Sockets on ${running.socketUrl} (feature-flag live updates)`);
