import test from "ava";
import mongoose, { Schema } from "mongoose";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { KernelErrors } from "../../kernel/kernel-errors.js";
import { isDeletedPlugin, modelRouter, Permissions, type ModelSyncOptions } from "../rest/index.js";
import { SyncErrors } from "./errors.js";
import { syncApp, syncPlugin } from "./index.js";

test.after.always(() => stopTestDatabase());

const OPTIONS = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };
let counter = 0;

/** A model built the way a test asks: with or without a string id, soft delete and the sync plugin. */
function modelWith({ stringId = true, softDelete = true, plugin = "before" as "before" | "after" | "none" }) {
  const schema = new Schema(
    { ...(stringId ? { _id: { type: String, description: "Id" } } : {}), title: { type: String, description: "Title" }, orgId: { type: String, description: "Tenant" }, ownerId: { type: String, description: "Owner" } },
    OPTIONS,
  );
  if (softDelete) schema.plugin(isDeletedPlugin);
  if (plugin === "before") schema.plugin(syncPlugin);
  const model = mongoose.model(`CheckModel${process.pid}x${++counter}`, schema);
  if (plugin === "after") schema.plugin(syncPlugin);
  return model;
}

async function startError(model: ReturnType<typeof modelWith>, sync: ModelSyncOptions, withScopes = true): Promise<unknown> {
  const app = (await createTestApp())
    .register(modelRouter(`/checks-${counter}`, model, { permissions: { list: [Permissions.IsAny] }, sync }))
    .register(syncApp(withScopes ? { getUserScopes: () => [] } : {}));
  try {
    await app.build();
    await app.stop();
    return undefined;
  } catch (error) {
    await app.stop().catch(() => undefined);
    return error;
  }
}

const rules: [string, () => ReturnType<typeof modelWith>, ModelSyncOptions, string, boolean?][] = [
  ["an ObjectId _id", () => modelWith({ stringId: false }), { scope: { type: "owner" } }, SyncErrors.ID_NOT_STRING.code],
  ["no isDeletedPlugin", () => modelWith({ softDelete: false }), { scope: { type: "owner" } }, SyncErrors.SOFT_DELETE_MISSING.code],
  ["syncPlugin after compile", () => modelWith({ plugin: "after" }), { scope: { type: "owner" } }, SyncErrors.PLUGIN_MISSING.code],
  ["no syncPlugin", () => modelWith({ plugin: "none" }), { scope: { type: "owner" } }, SyncErrors.PLUGIN_MISSING.code],
  ["a custom scope without snapshotFilter", () => modelWith({}), { scope: () => "x" }, SyncErrors.SNAPSHOT_FILTER_MISSING.code],
  ["a tenant scope without getUserScopes", () => modelWith({}), { scope: { type: "tenant", field: "orgId" } }, SyncErrors.USER_SCOPES_MISSING.code, false],
  ["a scope field not in the schema", () => modelWith({}), { scope: { type: "tenant", field: "teamId" } }, SyncErrors.SCOPE_FIELD_UNKNOWN.code],
];

for (const [rule, make, sync, code, withScopes] of rules) {
  test(`start fails for a synced model with ${rule}: ${code}`, async (t) => {
    const error = await startError(make(), sync, withScopes ?? true);
    t.true(hasErrorCode(error, code), `got ${String(error)}`);
  });
}

test("a well-formed synced model starts", async (t) => {
  t.is(await startError(modelWith({}), { scope: { type: "tenant", field: "orgId" } }), undefined);
});

test("an app with a synced router but no syncApp() does not start (KERNEL_MISSING_DEPENDENCY names sync)", async (t) => {
  const app = (await createTestApp()).register(modelRouter(`/unsynced-${++counter}`, modelWith({}), { permissions: { list: [Permissions.IsAny] }, sync: { scope: { type: "owner" } } }));
  t.teardown(() => app.stop().catch(() => undefined));
  const error = await t.throwsAsync(() => app.build());
  t.true(hasErrorCode(error, KernelErrors.MISSING_DEPENDENCY), String(error));
  t.regex(String(error), /depends on "sync"/);
});

test("saving a synced document in an app without the sync plugin fails with SYNC_MODEL_NOT_BOUND", async (t) => {
  const model = modelWith({});
  const app = await createTestApp();
  await app.build();
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(() => model.create({ _id: "x1", title: "t", ownerId: "u" }));
  t.true(hasErrorCode(error, SyncErrors.MODEL_NOT_BOUND.code), String(error));
});
