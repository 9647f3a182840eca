import { createRequire } from "node:module";
import path from "node:path";
import express, { type Router } from "express";
import { redirectedToTrailingSlash } from "../contracts/trailing-slash.js";

const require = createRequire(import.meta.url);

/**
 * The interactive API documentation (Swagger UI) at `/docs`, served from the locally installed
 * `swagger-ui-dist` (no CDN) and pointed at this app's `/openapi.json`. Every URL it hands the
 * browser is relative (assets, the document, the `/docs` → `/docs/` redirect), so the page keeps
 * working when the app is mounted under a prefix or served behind a proxy that adds one.
 * `specUrl` is resolved by the browser against the page (`<mount>/docs/`).
 *
 * @example
 * if (config.enableApiDocsUi) app.use("/docs", docsUiRouter());
 */
export function docsUiRouter(specUrl = "../openapi.json"): Router {
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
  // A relative `url` resolves against the page (/prefix/docs/), so ../openapi.json is the
  // document of this app wherever it is mounted.
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });`;
  router.get("/", (req, res) => {
    // Relative asset URLs need the trailing slash: /docs → /docs/.
    if (redirectedToTrailingSlash(req, res)) return;
    res.type("html").send(page);
  });
  router.get("/init.js", (_req, res) => res.type("application/javascript").send(init));
  router.use(express.static(assets, { index: false, fallthrough: true }));
  return router;
}
