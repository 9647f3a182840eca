import cors, { type CorsOptions } from "cors";
import express, { type Express, type RequestHandler, type Router } from "express";
import { AUTHENTICATION_MIDDLEWARE, HTTP_ROUTER, REQUEST_LOGGING_MIDDLEWARE } from "../contracts/http.js";
import { ERROR_TRACKER } from "../contracts/error-tracker.js";
import { MODEL_REGISTRY } from "../contracts/model-registry.js";
import type { SvcKernel } from "../kernel/kernel.js";
import { correlationMiddleware } from "../plugins/logging/correlation-middleware.js";
import { captureRawBody } from "../contracts/raw-body.js";
import { decodingFailuresAsClientErrors, JSON_MEDIA_TYPES, validationContextMiddleware, validatorSettingsOf } from "../plugins/validation/index.js";
import { IDEMPOTENT_REPLAYED_HEADER } from "../plugins/idempotency/index.js";
import { docsUiRouter } from "./docs-ui.js";
import { HttpErrors } from "../kernel/http-errors.js";
import { errorHandler, notFoundHandler } from "./error-handler.js";
import { createModelRegistry } from "./model-registry.js";

/**
 * Response headers a page on another origin may read (CORS hides all but a few by default): what
 * svc's answers tell clients to act on — a created record's `Location`, the `ETag` for
 * `If-Match` and `If-None-Match`, `Retry-After`, `Idempotent-Replayed`, and the request id to
 * quote in a bug report.
 *
 * @example
 * new SvcApp({ cors: { exposedHeaders: [...EXPOSED_HEADERS, "X-Quota-Left"] } });
 */
export const EXPOSED_HEADERS: readonly string[] = Object.freeze(["ETag", "Location", "Retry-After", IDEMPOTENT_REPLAYED_HEADER, "X-Request-Id"]);

export interface HttpStackOptions {
  /**
   * CORS settings (`cors` package); `false` sends no CORS headers. Default: any origin, no
   * credentials, and `EXPOSED_HEADERS` readable by pages of other origins (`exposedHeaders` replaces them).
   */
  cors?: CorsOptions | false;
  /**
   * Largest accepted JSON body: a number of bytes or a size string (`"512kb"`, `"1.5mb"`); larger
   * → 413. Default `1mb`. Anything else, or a size that is not above zero, stops `build()` with
   * `HOST_BODY_LIMIT_INVALID`.
   */
  bodyLimit?: string | number;
  /**
   * express's `trust proxy` setting, needed behind a load balancer for real client IPs (`req.ip`,
   * which the auth plugin's per-IP limits count by). Default `TRUST_PROXY` (false).
   */
  trustProxy?: boolean | number | string;
  /** Host middleware added with `addMiddleware`, run after authentication and logging. */
  middleware?: readonly RequestHandler[];
}

/** The names of the stack's layers, in order — what the parity test compares. */
export const STACK_ORDER = [
  "svcCorrelation",
  "svcRequestLogging",
  "svcQueryLimit",
  "svcValidationContext",
  "svcCors",
  "svcJsonBody",
  "svcAuthentication",
  "svcHostMiddleware",
  "svcRoutes",
  "svcOpenApi",
  "svcDocsUi",
  "svcNotFound",
  "svcErrorHandler",
] as const;

/**
 * Builds the one middleware stack both hosts use, in this order: request context and
 * correlation, request-logging hook, query-parameter limit, CORS, JSON body parser (size-limited),
 * authentication hook, host middleware, plugin routes, `GET /openapi.json`, `GET /docs` (when
 * enabled), JSON 404 and the error handler (the validation context for manual validators rides
 * along after the query limit).
 * The hooks are filled from the kernel's container once plugins have
 * registered, so a plugin can take a slot without the host knowing about it.
 *
 * @example
 * const { app } = createHttpStack(kernel, { bodyLimit: "512kb" });
 */
export function createHttpStack(kernel: SvcKernel, options: HttpStackOptions = {}): { app: Express; router: Router } {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", options.trustProxy ?? kernel.config.trustProxy);

  const router = express.Router();
  kernel.container.bind(HTTP_ROUTER, { useValue: router });
  kernel.container.bind(MODEL_REGISTRY, { useValue: createModelRegistry() });

  const passThrough: RequestHandler = (_req, _res, next) => next();
  const slot = (name: string, resolve: () => RequestHandler | undefined): RequestHandler => {
    let handler: RequestHandler | undefined;
    const named = {
      [name]: ((req, res, next) => {
        handler ??= resolve() ?? passThrough;
        return handler(req, res, next);
      }) as RequestHandler,
    };
    return named[name]!;
  };
  const named = (name: string, handler: RequestHandler): RequestHandler => slot(name, () => handler);

  // A router runs the host's middleware in order, async errors included, as one named layer.
  const hostMiddleware = express.Router();
  for (const handler of options.middleware ?? []) hostMiddleware.use(handler);

  app.use(correlationMiddleware());
  // Logging hooks the response's end, so it goes before every layer that can answer: a malformed
  // body, a 413, a bad bearer token or a CORS preflight is logged like any other request. It reads
  // the body and the user when the response ends, by which time the later layers have set them.
  app.use(slot("svcRequestLogging", () => kernel.container.tryResolve(REQUEST_LOGGING_MIDDLEWARE)));
  app.use(named("svcQueryLimit", queryParameterLimit));
  app.use(
    validationContextMiddleware(() => ({ settings: validatorSettingsOf(kernel.container), logger: kernel.pluginContext.logger })),
  );
  app.use(named("svcCors", options.cors === false ? passThrough : cors({ exposedHeaders: [...EXPOSED_HEADERS], ...options.cors })));
  // `verify: captureRawBody` keeps the exact bytes as `req.rawBody` for webhook signature checks.
  // Other media types are left unread: webhook and form routes read them their own way, and
  // routes that take JSON answer them with 415 (`requireJsonBody`).
  const jsonBody = decodingFailuresAsClientErrors(
    express.json({ limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, strict: true, type: [...JSON_MEDIA_TYPES], verify: captureRawBody }),
  );
  app.use(named("svcJsonBody", jsonBody));
  app.use(slot("svcAuthentication", () => kernel.container.tryResolve(AUTHENTICATION_MIDDLEWARE)));
  app.use(named("svcHostMiddleware", hostMiddleware));
  app.use(named("svcRoutes", router));
  app.use(
    named("svcOpenApi", (req, res, next) => {
      if (req.path !== "/openapi.json" || (req.method !== "GET" && req.method !== "HEAD")) return next();
      const { json, etag } = kernel.openapi.serialized();
      res.setHeader("ETag", etag);
      res.setHeader("Cache-Control", "no-cache");
      if (req.fresh) {
        res.status(304).end();
        return;
      }
      res.type("application/json").send(json);
    }),
  );
  app.use("/docs", named("svcDocsUi", kernel.config.enableApiDocsUi ? docsUiRouter() : passThrough));
  app.use(notFoundHandler());
  app.use(
    errorHandler({
      logger: () => kernel.pluginContext.logger,
      errorTracker: () => kernel.container.tryResolve(ERROR_TRACKER),
    }),
  );
  return { app, router };
}

/** What `bodyLimit` is unless given. */
export const DEFAULT_BODY_LIMIT = "1mb";

const SIZE_UNITS: Readonly<Record<string, number>> = { b: 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30, tb: 2 ** 40, pb: 2 ** 50 };

/**
 * `bodyLimit` as a byte count: a positive whole number, or a size string in the syntax
 * body-parser reads (the `bytes` package: `"512kb"`, `"1.5mb"`, `"2048"`); undefined for anything
 * else. Checked before body-parser sees it, which reads `"1 megabyte"` as 1 byte and lets 0 or -1
 * refuse every body.
 *
 * @example
 * bodyLimitBytes("1.5kb"); // 1536
 * bodyLimitBytes("abc");   // undefined
 */
export function bodyLimitBytes(limit: string | number): number | undefined {
  let bytes: number;
  if (typeof limit === "number") {
    bytes = limit;
  } else {
    const match = /^(\d+(?:\.\d+)?) *(b|kb|mb|gb|tb|pb)?$/i.exec(limit.trim());
    if (!match) return undefined;
    bytes = Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? "b").toLowerCase()]!);
  }
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** More query parameters than this is a 413, as for a form body. */
export const MAX_QUERY_PARAMETERS = 1000;

/**
 * Refuses a query string of more than `MAX_QUERY_PARAMETERS` parameters. Express's query parser
 * stops at 1000 and drops the rest without a word, so a filter past them would vanish and the
 * answer would look like a successful, unfiltered list.
 */
const queryParameterLimit: RequestHandler = (req, _res, next) => {
  const start = req.url.indexOf("?");
  if (start < 0) return next();
  let parameters = 1;
  for (let index = req.url.indexOf("&", start); index >= 0; index = req.url.indexOf("&", index + 1)) {
    if (++parameters > MAX_QUERY_PARAMETERS) {
      return next(HttpErrors.TOO_MANY_QUERY_PARAMETERS({ detail: `The query string has more than ${MAX_QUERY_PARAMETERS} parameters` }));
    }
  }
  next();
};

/** The names of the app's top-level layers, for checking the stack order. */
export function stackLayerNames(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: { name: string }[] } }).router.stack;
  return stack.map((layer) => layer.name);
}
