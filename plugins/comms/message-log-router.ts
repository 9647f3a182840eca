import { modelRouter, Permissions, type ModelRouter } from "../rest/index.js";
import type { CommsMessageFields, CommsMessageModel } from "./comms-message-model.js";
import { COMMS_TAG } from "./comms-openapi-tag.js";

/**
 * The admin delivery log at `{basePath}/messages`: a read-only model router, newest first,
 * paginated (`limit`, `page`), filtered on `channel`, `operation`, `status`, `errorClass`,
 * `errorCode`, `provider`, a `created` range (`created[$gte]=2026-01-01`) and `recipients` (useful
 * only with `redactRecipients: false`; redacted rows all read `[redacted]`).
 *
 * @example
 * GET /comms/messages?channel=mail&status=failed&created[$gte]=2026-06-01&limit=20
 */
export function messageLogRouter(basePath: string, model: CommsMessageModel): ModelRouter<CommsMessageFields> {
  return modelRouter(`${basePath}/messages`, model, {
    permissions: { list: [Permissions.IsAdmin], read: [Permissions.IsAdmin] },
    queryFields: ["channel", "operation", "status", "errorClass", "errorCode", "provider", "created", "recipients"],
    sort: "-created,-_id",
    openApi: { tag: COMMS_TAG.name, tagDescription: COMMS_TAG.description, singular: "CommsMessage", plural: "CommsMessages" },
  });
}
