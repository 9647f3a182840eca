import type { Schema } from "mongoose";
import type { RequestUser } from "./request-user.js";

/** Who may do what with a model in the admin (SPEC §2.6, when `accessControl` is set). */
export interface AdminAccess {
  /** The access-control resource (default `admin<ModelName>`). */
  readonly resource?: string;
  /**
   * Replaces the standard decision for this model. `action` is `list`, `create`, `read`,
   * `update` or `delete`; `instance` is the record for `read`, `update` and `delete` (and for
   * each record of a bulk operation and each record's `_adminCapabilities`).
   */
  readonly authorize?: (input: { action: string; instance?: unknown; user?: RequestUser }) => boolean | Promise<boolean>;
  /**
   * Which records a `writeOwned` holder may update and delete (`adminOwnedBy("ownerId")`).
   * Default: the record's `ownerId` (the REST router's owner field for registered models) is the
   * caller; a model without that field has no owned records.
   */
  readonly ownedBy?: (instance: Readonly<Record<string, unknown>>, user: RequestUser) => boolean;
  /**
   * Fields only `write` may set; a `writeOwned` holder sending one gets 403. Always included:
   * `admin`, `roles`, `disabled` and the ownership field.
   */
  readonly protectedFields?: readonly string[];
}

/** The least the admin plugin needs of a model; any mongoose model is one. */
export interface AdminModel {
  readonly modelName: string;
  readonly schema: Schema;
}

/**
 * How the admin plugin shows one model (SPEC §2.6's `AdminModelConfig`): the one admin
 * model-config type. Plugins hand the admin a whole config (the feature flags'
 * `featureFlagAdminConfig()`); a `modelRouter` gives the {@link ModelAdminOptions} part and
 * supplies the model and its route path itself.
 *
 * @example
 * const todos: AdminModelConfig = {
 *   model: Todo,
 *   routePath: "/todos",
 *   displayName: "Todos",
 *   listFields: ["title", "done", "created"],
 *   defaultSort: "-created",
 * };
 */
export interface AdminModelConfig<TModel extends AdminModel = AdminModel> {
  readonly model: TModel;
  /** Where the admin serves the model, e.g. `/todos` (the admin's base path is prepended). */
  readonly routePath: string;
  readonly displayName: string;
  readonly listFields: readonly string[];
  /** Default `-created`. */
  readonly defaultSort?: string;
  readonly adminAccess?: AdminAccess;
}

/**
 * A `modelRouter`'s `admin` option: an {@link AdminModelConfig} without the model and route
 * path, which the router knows.
 *
 * @example
 * modelRouter("/todos", Todo, { permissions, admin: { displayName: "Todos", listFields: ["title", "done"] } });
 */
export type ModelAdminOptions = Omit<AdminModelConfig, "model" | "routePath">;
