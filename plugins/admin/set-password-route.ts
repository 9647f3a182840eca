import type { RequestHandler, Router } from "express";
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
 * Whether an admin model gets the set-password route: a user model (baseUserPlugin's `email` and
 * `admin`) of an app whose auth binds `ACCOUNTS` (the JWT provider; under session auth
 * better-auth owns passwords, and there is nothing to set).
 */
export function setsPasswords(entry: AdminEntry, accountsBound: boolean): boolean {
  return accountsBound && !entry.readOnly && isUserSchema(entry.model.schema);
}

/**
 * `POST {basePath}{routePath}/:id/password` (`{password}`) → 204: sets the user's password through
 * `ACCOUNTS` (its policy applies, and every sign-in of the user ends). The password is a protected
 * field: the caller needs the update rules of the record (as a PATCH) *and* `<resource>:write`
 * (403 `ADMIN_FIELD_NOT_PERMITTED` otherwise, as for `admin` or `roles`), so `writeOwned` never
 * lets anyone reset their own password here, where no current password is asked. Audited as an
 * update of `password`, never with the value.
 *
 * @example
 * if (setsPasswords(entry, true)) mountSetPasswordRoute(http, entry, router, access, audit, () => ctx.resolve(ACCOUNTS));
 */
export function mountSetPasswordRoute(http: Router, entry: AdminEntry, router: ModelRouter<Record<string, unknown>>, access: AdminAccessPolicy, audit: AuditLog, accounts: () => Accounts): void {
  const objectIdKeys = router.analysis.objectIdKeys;

  const allow: RequestHandler = async (req, _res, next) => {
    if (!req.user) throw HttpErrors.UNAUTHENTICATED({ detail: `setting a ${entry.modelName}'s password requires authentication` });
    if (!(await access.decide(entry, "update", req.user))) throw HttpErrors.FORBIDDEN({ detail: `update is not permitted on ${entry.modelName}` });
    next();
  };
  // Before the schema, which would strip what it does not declare: `{password, admin: true}`
  // must be refused, not half-applied.
  const refuseOthers: RequestHandler = (req, _res, next) => {
    const operators = operatorKeys(req.body);
    if (operators.length > 0) throw requestValidationError(operators, "body", ValidationErrors.OPERATOR_IN_BODY);
    const body: unknown = req.body;
    const unknownKeys = body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body).filter((key) => key !== "password") : [];
    if (unknownKeys.length > 0) {
      const issues = unknownKeys.map((key) => ({ path: key, message: "is not accepted: the body is {password}", keyword: "additionalProperties" }));
      throw requestValidationError(issues, "body", ValidationErrors.UNKNOWN_FIELD);
    }
    next();
  };

  http.post(`${entry.fullPath}/:id/password`, allow, refuseOthers, validateRequestBody(SET_PASSWORD_BODY), async (req, res) => {
    const { password } = req.body as { password: string };
    await access.checkFields(entry, req.user, { password });
    const id = req.params.id as string;
    const notFound = () => RestErrors.NOT_FOUND({ detail: `No ${entry.modelName} with this id` });
    if (!(objectIdKeys ? isValidObjectId(id) : STRING_ID.test(id))) throw notFound();
    // findOne leaves soft-deleted users out (isDeletedPlugin), as the model's own routes do.
    const record = await entry.model.findOne({ _id: id }).lean().exec();
    if (!record) throw notFound();
    if (!(await access.decide(entry, "update", req.user, record as Record<string, unknown>))) {
      throw HttpErrors.FORBIDDEN({ detail: `update is not permitted on this ${entry.modelName}` });
    }
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
}
