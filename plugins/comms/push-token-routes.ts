import type { Request, RequestHandler, Router } from "express";
import { isValidObjectId, Types } from "mongoose";
import { requireUser } from "../../contracts/request-user.js";
import { isDuplicateKeyError } from "../../contracts/database.js";
import type { PushSender } from "../../contracts/push.js";
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
 * refresh or a claim of an inactive token; 400 `COMMS_PUSH_TOKEN_INVALID` when a provider serving
 * the kind refuses the token; 409 `COMMS_TOKEN_CLAIMED` when another user's token is active;
 * past `maxTokensPerUser` active tokens the caller's least recently registered are deactivated)
 * and `DELETE {basePath}/pushTokens/:id` (the owner deactivates it: 204; anyone else's, or a
 * malformed id: 404). Mount them before the read router, which answers those methods with 403.
 *
 * @example
 * mountPushTokenWrites(router, { basePath: "/comms", model: pushTokenModel(), now: () => new Date(), requireChannel: () => undefined, senders, maxTokensPerUser: 20 });
 */
export function mountPushTokenWrites(
  router: Router,
  options: { basePath: string; model: PushTokenModel; now: () => Date; requireChannel: () => void; senders: readonly PushSender[]; maxTokensPerUser: number },
): void {
  const { model, now } = options;
  // The caller's active tokens beyond the newest `maxTokensPerUser` (the one just registered
  // kept): each registration trims, so concurrent ones together leave at most the limit.
  const trim = async (ownerId: string, kept: unknown, at: Date) => {
    const surplus = await model
      .find({ ownerId, active: true, _id: { $ne: kept } }, { _id: 1 })
      .sort({ lastRegisteredAt: -1, _id: -1 })
      .skip(options.maxTokensPerUser - 1)
      .lean();
    if (surplus.length === 0) return;
    await model.updateMany(
      { _id: { $in: surplus.map((row) => row._id) }, ownerId, active: true },
      { $set: { active: false, deactivatedAt: at, deactivationReason: "limit" }, $unset: { deactivationCode: 1 } },
    );
  };
  const register: RequestHandler = async (req, res) => {
    const user = requireUser(req);
    options.requireChannel();
    const body = req.body as { token: string; kind: PushTokenFields["kind"]; deviceName?: string };
    const problem = pushTokenProblem(options.senders, body.kind, body.token);
    if (problem !== undefined) throw CommsErrors.PUSH_TOKEN_INVALID({ detail: problem });
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
      await trim(user.id, claimed._id, at);
      res.json({ data: shape(claimed) });
      return;
    }
    try {
      const created = await model.create({ token: body.token, ...changes });
      await trim(user.id, created._id, at);
      res.location(`${req.baseUrl}${options.basePath}/pushTokens/${String(created._id)}`);
      res.status(201).json({ data: shape(created.toObject()) });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Another request created the token in the meantime: a client's retried registration, or
      // the device registering twice at start-up. If that was the caller's, this is a refresh.
      const raced = await claim();
      if (!raced) throw CommsErrors.TOKEN_CLAIMED({ detail: "This device token is active for another user; it can be claimed once deactivated" });
      await trim(user.id, raced._id, at);
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

/**
 * Why the providers serving `kind` would not send to `token` (or none serves it), or undefined:
 * every one of them must take it, since a send may fall back from one to the next. A provider whose check throws
 * refuses the token rather than failing the request.
 */
function pushTokenProblem(senders: readonly PushSender[], kind: string, token: string): string | undefined {
  let served = false;
  for (const sender of senders) {
    try {
      if (!sender.supports(kind)) continue;
      served = true;
      const problem = sender.validateToken?.(kind, token);
      if (problem !== undefined) return problem;
    } catch {
      return `The ${sender.name} push provider could not check this token`;
    }
  }
  // Stored, it would never be sent to: every send would answer channel-not-configured.
  return served ? undefined : `This app has no push provider for ${kind} tokens`;
}

/** `$`-keys are refused before validation strips anything (the shared rule for every body). */
const refuseOperators: RequestHandler = (req: Request, _res, next) => {
  const issues = operatorKeys(req.body);
  if (issues.length > 0) throw requestValidationError(issues, "body", ValidationErrors.OPERATOR_IN_BODY);
  next();
};
