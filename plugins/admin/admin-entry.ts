import type { Model } from "mongoose";
import type { AdminAccess, AdminModelConfig } from "../../contracts/admin-model-config.js";
import type { ModelRegistration } from "../../contracts/model-registry.js";
import type { RequestUser } from "../../contracts/request-user.js";
import { isUserSchema, MANAGED_USER_FIELDS } from "../../contracts/user-fields.js";
import { adminOwnedBy } from "./admin-owned-by.js";
import { AdminErrors } from "./errors.js";

/** Fields only `write` may set, on every model. */
const ALWAYS_PROTECTED = ["admin", "roles", "disabled"];
const ROUTE_PATH = /^\/[A-Za-z0-9/_.-]*[A-Za-z0-9_.-]$/;

/** One model as the admin serves it: its config with every default worked out. */
export interface AdminEntry {
  readonly model: Model<Record<string, unknown>>;
  readonly modelName: string;
  readonly routePath: string;
  /** `basePath + routePath`. */
  readonly fullPath: string;
  readonly displayName: string;
  readonly listFields: readonly string[];
  readonly defaultSort: string;
  /** The access-control resource: `admin<ModelName>` unless `adminAccess.resource`. */
  readonly resource: string;
  readonly authorize?: AdminAccess["authorize"];
  readonly ownedBy?: (instance: Readonly<Record<string, unknown>>, user: RequestUser) => boolean;
  readonly protectedFields: ReadonlySet<string>;
  /** The REST router's owner field, set from the caller on create (default `ownerId`). */
  readonly ownerField: string;
  /** Only list and read (the audit log). */
  readonly readOnly: boolean;
}

/**
 * Works out one admin model from its config (or from a `modelRouter`'s `admin` option), with the
 * defaults of SPEC §2.6: sort `-created` (when the model has `created`), resource
 * `admin<ModelName>`, ownership by the owner field when the schema has one.
 *
 * @example
 * const entry = adminEntry("/admin", { model: Todo, routePath: "/todos", displayName: "Todos", listFields: ["title"] });
 */
export function adminEntry(basePath: string, config: AdminModelConfig, registration?: ModelRegistration, readOnly = false): AdminEntry {
  const model = config.model as unknown as Model<Record<string, unknown>>;
  const modelName = model.modelName;
  if (!ROUTE_PATH.test(config.routePath)) throw AdminErrors.INVALID_ROUTE_PATH(modelName, config.routePath);
  const access = config.adminAccess ?? {};
  const ownerField = registration?.ownerField ?? "ownerId";
  const ownedBy = access.ownedBy ?? (model.schema.path(ownerField) ? adminOwnedBy(ownerField) : undefined);
  const ownershipField = (ownedBy as { field?: unknown } | undefined)?.field;
  // A user model (baseUserPlugin's `email` and `admin`): its sign-in identity is the framework's,
  // as on PATCH /auth/me — writing one's own user record must not change one's sign-in email.
  const identity = isUserSchema(model.schema) ? MANAGED_USER_FIELDS : [];
  const protectedFields = new Set([...ALWAYS_PROTECTED, ...identity, ...(access.protectedFields ?? []), ...(typeof ownershipField === "string" ? [ownershipField] : [])]);
  const defaultSort = config.defaultSort ?? (model.schema.path("created") ? "-created" : "_id");
  return {
    model,
    modelName,
    routePath: config.routePath,
    fullPath: `${basePath}${config.routePath}`,
    displayName: config.displayName,
    listFields: [...config.listFields],
    defaultSort,
    resource: access.resource ?? `admin${modelName}`,
    authorize: access.authorize,
    ownedBy,
    protectedFields,
    ownerField,
    readOnly,
  };
}
