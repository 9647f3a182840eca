import type { Request, RequestHandler, Router } from "express";
import type { SchemaObject } from "openapi3-ts/oas31";
import type { Accounts } from "../../contracts/accounts.js";
import { isUserSchema } from "../../contracts/user-fields.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { isValidObjectId, RestErrors, type ModelRouter } from "../rest/index.js";
import { operatorKeys, requestValidationError, validateRequestBody, ValidationErrors } from "../validation/index.js";
import type { AdminAccessPolicy } from "./admin-access.js";
import type { AdminEntry } from "./admin-entry.js";
import type { AuditLog } from "./audit-log.js";

const STRING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The body of `POST {basePath}{routePath}/:id/password`: the new password, before the app's policy. */
export const SET_PASSWORD_BODY: SchemaObject = {
  type: "object",
  required: ["password"],
  additionalProperties: false,
  properties: { password: { type: "string", minLength: 1, maxLength: 256, description: "The new password; the app's password policy applies (400 AUTH_WEAK_PASSWORD)" } },
};

/**
 * Whether an admin model gets the account routes (set password, end sign-ins): a user model
 * (baseUserPlugin's `email` and `admin`) of an app whose auth binds `ACCOUNTS` (the JWT provider;
 * under session auth better-auth owns passwords and sessions).
 */
export function administersAccounts(entry: AdminEntry, accountsBound: boolean): boolean {
  return accountsBound && !entry.readOnly && isUserSchema(entry.model.schema);
}

/**
 * The account actions on a user record, beside its CRUD routes. Both are protected: the caller
 * needs the update rules of the record (as a PATCH) *and* `<resource>:write` (403
 * `ADMIN_FIELD_NOT_PERMITTED` otherwise, as for `admin` or `roles`), so `writeOwned` never lets
 * anyone act on their own account here, where no current password is asked.
 * - `POST {basePath}{routePath}/:id/password` (`{password}`) → 204: sets the password through
 *   `ACCOUNTS` (its policy applies, every sign-in of the user ends). Audited as an update of
 *   `password`, never with the value.
 * - `POST {basePath}{routePath}/:id/end-sign-ins` (no body, or `{}`) → 204: ends every sign-in
 *   of the user (`ACCOUNTS.endSignIns`: an account taken over); the password stays. Audited as
 *   an update of `signInVersion`.
 * - `GET {basePath}{routePath}/:id/sign-ins` → `{data: [{id, signedInAt, lastActiveAt, userAgent,
 *   ip}]}` and `DELETE {basePath}{routePath}/:id/sign-ins/:signInId` → 204: the user's devices, and
 *   signing one out (a lost phone). The end is audited as an update of `endedSignIns`.
 *
 * @example
 * if (administersAccounts(entry, true)) mountUserAccountRoutes(http, entry, router, access, audit, () => ctx.resolve(ACCOUNTS));
 */
export function mountUserAccountRoutes(http: Router, entry: AdminEntry, router: ModelRouter<Record<string, unknown>>, access: AdminAccessPolicy, audit: AuditLog, accounts: () => Accounts): void {
  const objectIdKeys = router.analysis.objectIdKeys;
  const notFound = () => RestErrors.NOT_FOUND({ detail: `No ${entry.modelName} with this id` });

  const allow =
    (what: string): RequestHandler =>
    async (req, _res, next) => {
      if (!req.user) throw HttpErrors.UNAUTHENTICATED({ detail: `${what} of a ${entry.modelName} requires authentication` });
      if (!(await access.decide(entry, "update", req.user))) throw HttpErrors.FORBIDDEN({ detail: `update is not permitted on ${entry.modelName}` });
      next();
    };
  // Before the schema, which would strip what it does not declare: `{password, admin: true}`
  // must be refused, not half-applied.
  const onlyKeys =
    (accepted: readonly string[], shape: string): RequestHandler =>
    (req, _res, next) => {
      const operators = operatorKeys(req.body);
      if (operators.length > 0) throw requestValidationError(operators, "body", ValidationErrors.OPERATOR_IN_BODY);
      const body: unknown = req.body;
      if (body !== undefined && (body === null || typeof body !== "object" || Array.isArray(body))) {
        throw requestValidationError([{ path: "", message: "must be a JSON object", keyword: "type" }], "body");
      }
      const unknownKeys = body ? Object.keys(body).filter((key) => !accepted.includes(key)) : [];
      if (unknownKeys.length > 0) {
        const issues = unknownKeys.map((key) => ({ path: key, message: `is not accepted: the body is ${shape}`, keyword: "additionalProperties" }));
        throw requestValidationError(issues, "body", ValidationErrors.UNKNOWN_FIELD);
      }
      next();
    };
  /** The user the route names, once the caller may update that record and write its protected fields. */
  const target = async (req: Request, field: string): Promise<string> => {
    await access.checkFields(entry, req.user, { [field]: true });
    const id = req.params.id as string;
    if (!(objectIdKeys ? isValidObjectId(id) : STRING_ID.test(id))) throw notFound();
    // findOne leaves soft-deleted users out (isDeletedPlugin), as the model's own routes do.
    const record = await entry.model.findOne({ _id: id }).lean().exec();
    if (!record) throw notFound();
    if (!(await access.decide(entry, "update", req.user, record as Record<string, unknown>))) {
      throw HttpErrors.FORBIDDEN({ detail: `update is not permitted on this ${entry.modelName}` });
    }
    return id;
  };

  http.post(`${entry.fullPath}/:id/password`, allow("setting the password"), onlyKeys(["password"], "{password}"), validateRequestBody(SET_PASSWORD_BODY), async (req, res) => {
    const { password } = req.body as { password: string };
    const id = await target(req, "password");
    try {
      await accounts().setPassword(id, password);
    } catch (error) {
      // A user model the auth plugin does not sign in with, or a user deleted meanwhile.
      if ((error as { code?: unknown } | undefined)?.code === "AUTH_USER_NOT_FOUND") throw notFound();
      throw error;
    }
    await audit.record(req.user, "update", entry.modelName, [{ id, fields: ["password"] }]);
    res.status(204).end();
  });

  http.post(`${entry.fullPath}/:id/end-sign-ins`, allow("ending the sign-ins"), onlyKeys([], "empty"), async (req, res) => {
    const id = await target(req, "signInVersion");
    await accounts().endSignIns(id);
    await audit.record(req.user, "update", entry.modelName, [{ id, fields: ["signInVersion"] }]);
    res.status(204).end();
  });

  http.get(`${entry.fullPath}/:id/sign-ins`, allow("reading the sign-ins"), async (req, res) => {
    const id = await target(req, "endedSignIns");
    res.set("Cache-Control", "no-store").json({ data: await accounts().listSignIns(id) });
  });

  http.delete(`${entry.fullPath}/:id/sign-ins/:signInId`, allow("ending a sign-in"), async (req, res) => {
    const id = await target(req, "endedSignIns");
    const signInId = req.params.signInId as string;
    if (signInId.length > 64 || !(await accounts().endSignIn(id, signInId))) throw RestErrors.NOT_FOUND({ detail: `This ${entry.modelName} has no such sign-in` });
    await audit.record(req.user, "update", entry.modelName, [{ id, fields: ["endedSignIns"] }]);
    res.status(204).end();
  });
}
