import type { RequestHandler } from "express";
import { HTTP_ROUTER, QUIET_REQUEST_LOG } from "../../contracts/http.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { checkReadiness } from "./readiness.js";

/** Where load balancers and orchestrators probe an instance. */
export const LIVENESS_PATH = "/healthz";
export const READINESS_PATH = "/readyz";

const CHECKS_SCHEMA = {
  type: "object",
  description: "Each dependency the app has (database; redis with CACHE_URL) and whether it answered",
  additionalProperties: { type: "string", enum: ["ok", "failed"] },
} as const;

/**
 * The probes every app serves, unauthenticated and never cached, for load balancers and
 * orchestrators: `GET /healthz` (liveness: the process answers HTTP) and `GET /readyz`
 * (readiness: the database and, with `CACHE_URL`, Redis answer a ping within 2 s; else 503
 * `HTTP_NOT_READY` with `meta.checks`). A probe's answer names dependencies and `ok`/`failed`,
 * never an error message (those go to the log, as a warning). Successful probes are logged at
 * `debug` (`QUIET_REQUEST_LOG`).
 *
 * @example
 * // Kubernetes: livenessProbe.httpGet.path: /healthz, readinessProbe.httpGet.path: /readyz
 * new SvcApp(); // the host adds probesPlugin()
 */
export function probesPlugin(): SvcPlugin {
  return {
    name: "probes",
    start(ctx) {
      const probe: RequestHandler = (_req, res, next) => {
        res.setHeader("Cache-Control", "no-store");
        res.locals[QUIET_REQUEST_LOG] = true;
        next();
      };
      const router = ctx.resolve(HTTP_ROUTER);
      router.get(LIVENESS_PATH, probe, (_req, res) => void res.json({ data: { status: "ok" } }));
      router.get(READINESS_PATH, probe, async (_req, res) => {
        const { checks, failures } = await checkReadiness(ctx.container);
        const failed = Object.keys(failures);
        if (failed.length === 0) {
          res.json({ data: { status: "ready", checks } });
          return;
        }
        ctx.logger.warn(`Not ready: ${failed.map((name) => `${name}: ${failures[name]}`).join("; ")}`);
        throw HttpErrors.NOT_READY({ detail: `Not answering: ${failed.join(", ")}`, meta: { checks } });
      });

      ctx.openapi.addTag({ name: "probes", description: "Liveness and readiness, for load balancers and orchestrators" });
      ctx.openapi.addOperation("get", LIVENESS_PATH, {
        tags: ["probes"],
        operationId: "checkLiveness",
        summary: "Liveness: the process answers",
        security: [{}],
        responses: { 200: { description: "Alive", content: { "application/json": { schema: { type: "object", required: ["data"], properties: { data: { type: "object", required: ["status"], properties: { status: { const: "ok" } } } } } } } } },
      });
      ctx.openapi.addOperation("get", READINESS_PATH, {
        tags: ["probes"],
        operationId: "checkReadiness",
        summary: "Readiness: the database (and Redis, with CACHE_URL) answer",
        security: [{}],
        responses: {
          200: {
            description: "Ready to serve",
            content: { "application/json": { schema: { type: "object", required: ["data"], properties: { data: { type: "object", required: ["status", "checks"], properties: { status: { const: "ready" }, checks: CHECKS_SCHEMA } } } } } },
          },
          503: { description: "A dependency does not answer (HTTP_NOT_READY; meta.checks says which)", content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } } },
        },
      });
    },
  };
}
