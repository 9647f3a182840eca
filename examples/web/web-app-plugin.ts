import express from "express";
import { HTTP_ROUTER, type SvcPlugin } from "../../index.js";
import { buildWebApp, WEB_APP_DIR } from "./build-web-app.js";

/**
 * Serves the web demo at `/app`, bundled when the app starts (so `npm start` always serves the
 * current source; the bundle is not committed).
 *
 * @example
 * app.register(webAppPlugin());
 */
export function webAppPlugin(outDir = WEB_APP_DIR): SvcPlugin {
  return {
    name: "web-app",
    dependsOn: ["database"],
    async start(ctx) {
      await buildWebApp(outDir);
      const router = ctx.resolve(HTTP_ROUTER);
      // `root` keeps send's dotfile rule to the file name: the default directory is under `.svc/`,
      // and an absolute path through a dot-directory would be refused as a 404.
      router.get("/app", (_req, res) => res.sendFile("index.html", { root: outDir }));
      router.use("/app", express.static(outDir, { index: "index.html", fallthrough: true }));
    },
  };
}
