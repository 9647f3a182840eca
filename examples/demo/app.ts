// The demo app as the server and the commands both build it: one factory, so `npm start` and
// `npm run create-admin` see the same plugins, database and user model.
import { HTTP_ROUTER, type SvcApp, type SvcAppOptions, type SvcPlugin } from "../../index.js";
import { demoAdmin, seedRoles, todoStatsScreen } from "./admin.js";
import { demoAuth } from "./auth-setup.js";
import { demoComms, emailChangedNotice, emailChangeMail, passwordResetMail, verificationMail, welcomeMail } from "./comms.js";
import { demoFeatureFlags } from "./feature-flags.js";
import { realtimeApp, syncApp } from "../../plugins/sync/index.js";
import { todoRouter, todoSummaryTool } from "./todo.js";

/** A tiny plugin showing the shape every capability has. */
const hello: SvcPlugin = {
  name: "hello",
  dependsOn: ["database"],
  start(ctx) {
    ctx.resolve(HTTP_ROUTER).get("/", (_req, res) => {
      res.json({ data: { name: "svc demo", docs: "/openapi.json", ...(ctx.config.enableApiDocsUi ? { docsUi: "/docs" } : {}) } });
    });
    ctx.openapi.addTag({ name: "demo", description: "About this demo app" });
    ctx.openapi.addOperation("get", "/", {
      operationId: "readDemoInfo",
      summary: "Describe the demo app",
      tags: ["demo"],
      responses: { 200: { description: "The app's name and where its API documentation lives" } },
    });
  },
};

/**
 * The demo's options: the embedded engine persisted in `.svc/data`, unless `DB_URI` points at a
 * MongoDB (whose URI then names the database), and the API docs UI at `/docs`. Auth secrets need no set-up in development: the
 * auth plugin keeps generated ones in `.svc/secrets.json`.
 *
 * @example
 * const app = withDemoPlugins(new SvcApp(demoAppOptions(process.env)));
 */
export function demoAppOptions(env: NodeJS.ProcessEnv): SvcAppOptions {
  const external = Boolean(env.DB_URI?.trim() || env.DB_CONNECTION?.trim());
  return {
    database: external ? {} : { dbPath: ".svc/data", dbName: "svc_demo" },
    info: { title: "svc demo", version: "1.0.0" },
    // A new user's first look at the API: Swagger UI at /docs, unless the environment says otherwise.
    env: { ENABLE_API_DOCS_UI: "true", ...env },
  };
}

/**
 * Registers the demo's plugins on an app (the server's, a command's or a test's). Plugin
 * instances keep per-app state, so each call makes new ones.
 *
 * @example
 * const app = withDemoPlugins(await createTestApp());
 */
export function withDemoPlugins(app: SvcApp): SvcApp {
  const comms = demoComms();
  // Where links in the demo's mails point: APP_URL, else this machine on the app's port.
  const env = app.config.env;
  const appUrl = env.APP_URL?.trim() || `http://localhost:${env.PORT?.trim() || "3000"}`;
  const printLinks = app.config.nodeEnv !== "test";
  const auth = demoAuth({
    onSignup: welcomeMail(comms),
    sendPasswordReset: passwordResetMail(comms, appUrl, printLinks),
    sendVerification: verificationMail(comms, appUrl, printLinks),
    emailChange: { send: emailChangeMail(comms, appUrl, printLinks), onChanged: emailChangedNotice(comms) },
  });
  return app.register(hello).register(todoRouter()).register(todoSummaryTool()).register(auth).register(demoFeatureFlags()).register(comms).register(syncApp()).register(realtimeApp()).register(demoAdmin()).register(seedRoles).register(todoStatsScreen);
}
