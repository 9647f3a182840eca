import type { RequestHandler, Router } from "express";
import { requireUser, type RequestUser } from "../../contracts/request-user.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { OpenApiRegistry, OperationObject } from "../../kernel/openapi-registry.js";
import { BEARER_SCHEME, sharedResponse } from "../../kernel/openapi-shared-components.js";
import type { FlagCache } from "./flag-cache.js";
import { FEATURE_FLAGS_TAG } from "./flag-openapi-tag.js";
import { flagConfigurationJson, legacyEvaluationFor } from "./flag-configuration.js";

export interface FlagRoutesOptions {
  basePath: string;
  cache: FlagCache;
  segmentNames: readonly string[];
  /** Who may list segments besides admins. */
  segmentsPermission?: (user: RequestUser) => boolean | Promise<boolean>;
  /** The `Sunset` date of the deprecated evaluate route (default: about 90 days after mounting). */
  sunset?: Date;
}

const SUNSET_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Mounts the per-user routes of the flag plugin (the admin CRUD routes are a model router):
 * `GET segments`, `GET flagConfiguration` and the deprecated `GET evaluate`. Both evaluation
 * routes read the in-memory cache, so they cost no database query.
 *
 * @example
 * mountFlagRoutes(router, { basePath: "/feature-flags", cache, segmentNames: ["staff"] });
 */
export function mountFlagRoutes(router: Router, options: FlagRoutesOptions): void {
  const { basePath, cache } = options;
  const segments: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    const allowed = user.admin === true || (options.segmentsPermission ? await options.segmentsPermission(user) : false);
    if (!allowed) throw HttpErrors.FORBIDDEN({ detail: "Listing segments needs an admin or segmentsPermission" });
    res.json({ data: options.segmentNames });
  };
  const configuration: RequestHandler = (req, res) => {
    res.type("application/json").send(flagConfigurationJson(cache.flags(), requireUser(req)));
  };
  const sunset = (options.sunset ?? new Date(Date.now() + SUNSET_MS)).toUTCString();
  const evaluate: RequestHandler = (req, res) => {
    const user = requireUser(req);
    // RFC 9745 (Deprecation) and RFC 8594 (Sunset); the successor is named in a Link header.
    res.setHeader("Deprecation", "true");
    res.setHeader("Sunset", sunset);
    res.setHeader("Link", `<${basePath}/flagConfiguration>; rel="successor-version"`);
    res.json({ data: legacyEvaluationFor(cache.flags(), user) });
  };
  router.get(`${basePath}/segments`, segments);
  router.get(`${basePath}/flagConfiguration`, configuration);
  router.get(`${basePath}/evaluate`, evaluate);
}

const unauthorized = sharedResponse("Unauthorized");
const forbidden = sharedResponse("Forbidden");

/** Documents the routes `mountFlagRoutes` serves, under the plugin's one tag. */
export function documentFlagRoutes(openapi: OpenApiRegistry, basePath: string): void {
  openapi.addTag(FEATURE_FLAGS_TAG);
  openapi.addSchema("FlagConfiguration", {
    type: "object",
    description: "Active flags resolved for the signed-in user, keyed by flag key",
    additionalProperties: {
      type: "object",
      required: ["variants", "defaultVariant", "disabled"],
      properties: {
        variants: { type: "object", additionalProperties: { type: ["boolean", "string"] }, description: "Variant key → value" },
        defaultVariant: { type: "string", description: "The variant resolved for this user" },
        disabled: { type: "boolean", description: "Always false: disabled and archived flags are omitted" },
      },
    },
  });
  const secured = (operation: OperationObject): OperationObject => ({
    tags: [FEATURE_FLAGS_TAG.name],
    security: [{ [BEARER_SCHEME]: [] }],
    ...operation,
  });
  openapi.addOperation(
    "get",
    `${basePath}/segments`,
    secured({
      operationId: "listFlagSegments",
      summary: "List segment names",
      description: "Admins (or users allowed by segmentsPermission) see the registered segment names.",
      responses: {
        200: {
          description: "Segment names",
          content: { "application/json": { schema: { type: "object", properties: { data: { type: "array", items: { type: "string" } } } } } },
        },
        401: unauthorized,
        403: forbidden,
      },
    }),
  );
  openapi.addOperation(
    "get",
    `${basePath}/flagConfiguration`,
    secured({
      operationId: "readFlagConfiguration",
      summary: "Flag configuration for the signed-in user",
      responses: {
        200: {
          description: "Flag configuration (the shape OpenFeature's in-memory provider reads)",
          content: { "application/json": { schema: { type: "object", properties: { data: { $ref: "#/components/schemas/FlagConfiguration" } } } } },
        },
        401: unauthorized,
      },
    }),
  );
  openapi.addOperation(
    "get",
    `${basePath}/evaluate`,
    secured({
      operationId: "evaluateFlags",
      summary: "Evaluate every active flag for the signed-in user (deprecated)",
      deprecated: true,
      description: `Use ${basePath}/flagConfiguration. Responses carry Deprecation and Sunset headers.`,
      responses: {
        200: {
          description: "Flag key → value (boolean, variant key, or null)",
          headers: {
            Deprecation: { schema: { type: "string" }, description: "Always true" },
            Sunset: { schema: { type: "string" }, description: "HTTP-date after which the route may disappear" },
          },
          content: {
            "application/json": {
              schema: { type: "object", properties: { data: { type: "object", additionalProperties: { type: ["boolean", "string", "null"] } } } },
            },
          },
        },
        401: unauthorized,
      },
    }),
  );
}
