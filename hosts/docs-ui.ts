import { createRequire } from "node:module";
import path from "node:path";
import express, { type Router } from "express";

const require = createRequire(import.meta.url);

/**
 * The interactive API documentation (Swagger UI) at `/docs`, served from the locally installed
 * `swagger-ui-dist` (no CDN) and pointed at this app's `/openapi.json`.
 *
 * @example
 * if (config.enableApiDocsUi) app.use("/docs", docsUiRouter("/openapi.json"));
 */
export function docsUiRouter(specUrl: string): Router {
  const assets = path.dirname(require.resolve("swagger-ui-dist/package.json"));
  const router = express.Router();
  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>API documentation</title>
  <link rel="stylesheet" href="swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="swagger-ui-bundle.js"></script>
  <script src="swagger-ui-standalone-preset.js"></script>
  <script src="init.js"></script>
</body>
</html>`;
  // The initializer is a separate file (not inline) so a strict Content-Security-Policy still works.
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });`;
  router.get("/", (req, res) => {
    // Relative asset URLs need the trailing slash: /docs → /docs/.
    if (!req.originalUrl.split("?")[0]!.endsWith("/")) return res.redirect(301, `${req.baseUrl}/`);
    res.type("html").send(page);
  });
  router.get("/init.js", (_req, res) => res.type("application/javascript").send(init));
  router.use(express.static(assets, { index: false, fallthrough: true }));
  return router;
}
