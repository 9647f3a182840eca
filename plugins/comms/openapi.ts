import type { DeliveryWebhook } from "../../contracts/delivery-webhook.js";
import type { OpenApiRegistry } from "../../kernel/openapi-registry.js";
import { BEARER_SCHEME, sharedResponse } from "../../kernel/openapi-shared-components.js";
import { COMMS_TAG } from "./comms-openapi-tag.js";
import { PUSH_TOKEN_BODY } from "./push-token-routes.js";
import { webhookPath } from "./webhook-routes.js";

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } } });

/**
 * Documents the routes the plugin serves by hand (the push-token and delivery-log reads are model
 * routers and document themselves): push-token registration and deactivation, and one webhook
 * per provider that has one.
 *
 * @example
 * documentCommsRoutes(ctx.openapi, "/comms", webhooks);
 */
export function documentCommsRoutes(openapi: OpenApiRegistry, basePath: string, webhooks: readonly DeliveryWebhook[]): void {
  openapi.addTag(COMMS_TAG);
  const properties = Object.fromEntries(Object.entries(PUSH_TOKEN_BODY).map(([key, { required: _required, ...schema }]) => [key, schema]));
  openapi.addSchema("PushTokenRegistration", {
    type: "object",
    description: "A device token to register or refresh",
    required: ["token", "kind"],
    properties,
    additionalProperties: false,
  });
  openapi.addSchema("PushTokenRecord", {
    type: "object",
    description: "A registered push token",
    required: ["id", "token", "kind", "ownerId", "active"],
    properties: {
      _id: { type: "string" },
      id: { type: "string", description: "The token record's id" },
      token: { type: "string" },
      kind: { type: "string", enum: ["expo", "webpush"] },
      ownerId: { type: "string", description: "The signed-in user" },
      active: { type: "boolean" },
      deviceName: { type: "string" },
      lastRegisteredAt: { type: "string", format: "date-time" },
      created: { type: "string", format: "date-time" },
      updated: { type: "string", format: "date-time" },
    },
  });
  const token = { "application/json": { schema: { type: "object", required: ["data"], properties: { data: { $ref: "#/components/schemas/PushTokenRecord" } } } } };
  openapi.addOperation("post", `${basePath}/pushTokens`, {
    tags: [COMMS_TAG.name],
    operationId: "registerPushToken",
    summary: "Register or refresh a device's push token",
    description:
      "A new token is created (201) for the signed-in user. The caller's own token is refreshed, and an inactive token of another user is claimed (200). " +
      "A token no configured provider of its kind would send to (a Web Push endpoint outside the browsers' push services, a malformed Expo token) is refused (400 COMMS_PUSH_TOKEN_INVALID). " +
      "An active token of another user is refused (409 COMMS_TOKEN_CLAIMED). Past maxPushTokensPerUser (20) active tokens, the caller's least recently registered is deactivated. " +
      "In production without a push provider: 501 COMMS_CHANNEL_NOT_CONFIGURED.",
    security: [{ [BEARER_SCHEME]: [] }],
    requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/PushTokenRegistration" } } } },
    responses: {
      200: { description: "The refreshed or claimed token", content: token },
      201: { description: "The new token", content: token },
      400: sharedResponse("BadRequest"),
      401: sharedResponse("Unauthorized"),
      409: sharedResponse("Conflict"),
      501: errorResponse("No push provider is configured (production)"),
    },
  });
  openapi.addOperation("delete", `${basePath}/pushTokens/:id`, {
    tags: [COMMS_TAG.name],
    operationId: "deactivatePushToken",
    summary: "Deactivate one of your push tokens",
    description: "The token stops receiving notifications and may be claimed by another user of the device. Another user's token is 404.",
    security: [{ [BEARER_SCHEME]: [] }],
    parameters: [{ name: "id", in: "path", required: true, description: "The token record's id", schema: { type: "string", pattern: "^[0-9a-fA-F]{24}$" } }],
    responses: { 204: { description: "Deactivated" }, 401: sharedResponse("Unauthorized"), 404: sharedResponse("NotFound") },
  });
  for (const webhook of webhooks) {
    openapi.addOperation("post", webhookPath(basePath, webhook), {
      tags: [COMMS_TAG.name],
      operationId: `receive${webhook.provider.replace(/(^|[^A-Za-z0-9])([a-z])/g, (_m, _s, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, "")}DeliveryEvents`,
      summary: `Delivery events from ${webhook.provider}`,
      description: `Called by ${webhook.provider}, authenticated by its signature (no bearer token). A bad signature is 401, a repeated delivery 409; events for unknown messages are ignored.`,
      security: [{}],
      requestBody: {
        required: true,
        content:
          webhook.mediaType === "form"
            ? { "application/x-www-form-urlencoded": { schema: { type: "object", additionalProperties: { type: "string" } } } }
            : { "application/json": { schema: { type: "array", items: { type: "object" } } } },
      },
      responses: {
        200: {
          description: "Recorded",
          content: { "application/json": { schema: { type: "object", properties: { data: { type: "object", properties: { recorded: { type: "integer" }, ignored: { type: "integer" }, optOuts: { type: "integer" } } } } } } },
        },
        401: errorResponse("The signature does not match"),
        409: errorResponse("Already received"),
      },
    });
  }
}
