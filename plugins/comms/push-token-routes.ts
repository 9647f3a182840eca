import type { Request, RequestHandler, Router } from "express";
import { isValidObjectId, Types } from "mongoose";
import { requireUser } from "../../contracts/request-user.js";
import { isDuplicateKeyError } from "../../contracts/database.js";
import { modelRouter, Permissions, RestErrors, type ModelRouter, type QueryFilter } from "../rest/index.js";
import { operatorKeys, requestValidationError, validateRequestBody, ValidationErrors, type PropertySchema } from "../validation/index.js";
import { CommsErrors } from "./errors.js";
import { COMMS_TAG } from "./comms-openapi-tag.js";
import { PUSH_TOKEN_KINDS, type PushTokenFields, type PushTokenModel } from "./push-token-model.js";

/** The body of `POST {basePath}/pushTokens`. */
export const PUSH_TOKEN_BODY: Readonly<Record<string, PropertySchema>> = Object.freeze({
  token: { type: "string", minLength: 1, maxLength: 4096, required: true, description: "The Expo push token, or the Web Push subscription as JSON" },
  kind: { type: "string", enum: [...PUSH_TOKEN_KINDS], required: true, description: "expo or webpush" },
  deviceName: { type: "string", maxLength: 200, description: "A label for the device" },
});

// Admins too see only their own devices here: the delivery log is where admins look at others.
const OwnTokens: QueryFilter = (user) => (user ? { ownerId: user.id } : null);

/**
 * The list and read routes of the caller's push tokens: a model router (paginated, filterable on
 * `active` and `kind`, documented like every generated route). Registration and deactivation
 * follow SPEC §3.3's claim rules, which a plain create and delete cannot express, so
 * `mountPushTokenWrites` serves those two.
 *
 * @example
 * const reads = pushTokenReadRouter("/comms", pushTokenModel());
 */
export function pushTokenReadRouter(basePath: string, model: PushTokenModel): ModelRouter<PushTokenFields> {
  return modelRouter(`${basePath}/pushTokens`, model, {
    permissions: { list: [Permissions.IsAuthenticated], read: [Permissions.IsAuthenticated] },
    queryFilter: OwnTokens,
    queryFields: ["active", "kind"],
    sort: "-created",
    openApi: { tag: COMMS_TAG.name, tagDescription: COMMS_TAG.description, singular: "PushToken", plural: "PushTokens" },
  });
}

/** A token as the write routes answer it: the same fields the read routes show. */
function shape(doc: PushTokenFields & { _id: unknown }): Record<string, unknown> {
  const { _id, ...rest } = doc as PushTokenFields & { _id: unknown; __v?: unknown };
  delete (rest as { __v?: unknown }).__v;
  return { _id: String(_id), id: String(_id), ...rest, ownerId: String(rest.ownerId) };
}

/**
 * Mounts `POST {basePath}/pushTokens` (register or refresh: 201 for a new token, 200 for a
 * refresh or a claim of an inactive token; 409 `COMMS_TOKEN_CLAIMED` when another user's token
 * is active) and `DELETE {basePath}/pushTokens/:id` (the owner deactivates it: 204; anyone
 * else's, or a malformed id: 404). Mount them before the read router, which answers those
 * methods with 403.
 *
 * @example
 * mountPushTokenWrites(router, { basePath: "/comms", model: pushTokenModel(), now: () => new Date(), requireChannel: () => undefined });
 */
export function mountPushTokenWrites(
  router: Router,
  options: { basePath: string; model: PushTokenModel; now: () => Date; requireChannel: () => void },
): void {
  const { model, now } = options;
  const register: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    options.requireChannel();
    const body = req.body as { token: string; kind: PushTokenFields["kind"]; deviceName?: string };
    const at = now();
    const changes = { kind: body.kind, active: true, lastRegisteredAt: at, ownerId: new Types.ObjectId(user.id), ...(body.deviceName !== undefined ? { deviceName: body.deviceName } : {}) };
    const reactivated = { deactivatedAt: 1, deactivationReason: 1, deactivationCode: 1 } as const;
    // One atomic step per rule: the caller's own token is refreshed (keeping its label unless a
    // new one is sent); another user's inactive token is claimed, and nothing of the previous
    // owner's (the device label) stays on it. An active token of another user matches neither.
    const claim = async () =>
      (await model.findOneAndUpdate({ token: body.token, ownerId: user.id }, { $set: changes, $unset: reactivated }, { returnDocument: "after" }).lean()) ??
      (await model
        .findOneAndUpdate(
          { token: body.token, active: false },
          { $set: changes, $unset: { ...reactivated, ...(body.deviceName === undefined ? { deviceName: 1 } : {}) } },
          { returnDocument: "after" },
        )
        .lean());
    const claimed = await claim();
    if (claimed) {
      res.json({ data: shape(claimed) });
      return;
    }
    try {
      const created = await model.create({ token: body.token, ...changes });
      res.location(`${req.baseUrl}${options.basePath}/pushTokens/${String(created._id)}`);
      res.status(201).json({ data: shape(created.toObject()) });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Another request created the token in the meantime: a client's retried registration, or
      // the device registering twice at start-up. If that was the caller's, this is a refresh.
      const raced = await claim();
      if (!raced) throw CommsErrors.TOKEN_CLAIMED({ detail: "This device token is active for another user; it can be claimed once deactivated" });
      res.json({ data: shape(raced) });
    }
  };
  const deactivate: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    const id = req.params.id;
    if (typeof id !== "string" || !isValidObjectId(id) || !/^[0-9a-fA-F]{24}$/.test(id)) throw RestErrors.NOT_FOUND({ detail: "No such push token" });
    const at = now();
    const done = await model.findOneAndUpdate(
      { _id: id, ownerId: user.id },
      { $set: { active: false, deactivatedAt: at, deactivationReason: "owner" }, $unset: { deactivationCode: 1 } },
    );
    if (!done) throw RestErrors.NOT_FOUND({ detail: "No such push token" });
    res.status(204).end();
  };
  router.post(`${options.basePath}/pushTokens`, refuseOperators, validateRequestBody(PUSH_TOKEN_BODY), register);
  router.delete(`${options.basePath}/pushTokens/:id`, deactivate);
}

/** `$`-keys are refused before validation strips anything (the shared rule for every body). */
const refuseOperators: RequestHandler = (req: Request, _res, next) => {
  const issues = operatorKeys(req.body);
  if (issues.length > 0) throw requestValidationError(issues, "body", ValidationErrors.OPERATOR_IN_BODY);
  next();
};
