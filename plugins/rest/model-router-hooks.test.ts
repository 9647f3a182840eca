import test from "ava";
import mongoose from "mongoose";
import { APIError } from "../../kernel/api-error.js";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, buildRestApp, spec } from "../../test/support/rest-hosts.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { logger } from "../logging/logger.js";
import { RestErrors } from "./errors.js";
import { modelRouter } from "./model-router.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { OwnerQueryFilter } from "./owner-query-filter.js";
import { Permissions } from "./permissions.js";
import { defaultPlugins } from "./schema/default-plugins.js";
import { configureOpenApiValidator } from "../validation/index.js";
import { ValidationErrors } from "../validation/index.js";

test.after.always(() => stopTestDatabase());

interface TaskFields {
  title: string;
  priority?: number;
  label?: string;
  ownerId?: mongoose.Types.ObjectId;
}
const schema = new mongoose.Schema<TaskFields>(
  {
    title: { type: String, required: true, description: "Title" },
    priority: { type: Number, min: 1, max: 5, description: "Priority" },
    label: { type: String, description: "Set by hooks" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Owner" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const Task = mongoose.model("HookTask", schema);

const any = [Permissions.IsAny];
const open: ModelRouterOptions<TaskFields>["permissions"] = { list: any, create: any, read: any, update: any, delete: any };
const tokens = new TokenMap();

async function appFor(t: import("ava").ExecutionContext, options: Partial<ModelRouterOptions<TaskFields>>, path: string, plugins = [tokens.plugin()]) {
  const app = await buildRestApp("SvcApp", [spec(path, Task, { permissions: open, ...options })], plugins);
  t.teardown(() => app.stop());
  return app.http;
}

test("preCreate shapes the body; null refuses with 403; throwing maps to its error or 400", async (t) => {
  const http = await appFor(
    t,
    {
      preCreate: (body, req) => {
        if (body.title === "deny") return null;
        if (body.title === "conflict") throw new APIError({ status: 409, title: "Taken", code: "TASK_TAKEN" });
        if (body.title === "boom") throw new Error("Title is reserved");
        return { ...body, label: `by ${req.user?.email ?? "anonymous"}` };
      },
    },
    "/pre-create",
  );
  const alice = tokens.user("hook-alice");
  const created = await as(http, alice.auth).post("/pre-create", { title: "ok" }).expect(201);
  t.is(created.body.data.label, "by hook-alice@example.test");
  const denied = await as(http).post("/pre-create", { title: "deny" }).expect(403);
  t.is(denied.body.errors[0].code, RestErrors.HOOK_DENIED.code);
  const conflict = await as(http).post("/pre-create", { title: "conflict" }).expect(409);
  t.is(conflict.body.errors[0].code, "TASK_TAKEN");
  const failed = await as(http).post("/pre-create", { title: "boom" }).expect(400);
  t.is(failed.body.errors[0].code, RestErrors.HOOK_FAILED.code);
  t.is(await Task.countDocuments({ title: { $in: ["deny", "conflict", "boom"] } }), 0);
});

test("postCreate, preUpdate, postUpdate, preDelete and postDelete see documents and the request", async (t) => {
  const calls: string[] = [];
  const http = await appFor(
    t,
    {
      postCreate: (doc, req) => {
        calls.push(`postCreate:${doc.title}:${typeof doc.save}:${req.method}`);
      },
      preUpdate: (body, _req, doc) => {
        calls.push(`preUpdate:${doc.title}`);
        if (body.title === "deny") return undefined;
        return { ...body, label: "updated" };
      },
      postUpdate: (doc, body, _req, prevDoc) => {
        calls.push(`postUpdate:${prevDoc.title}->${doc.title}:${String(body.label)}`);
      },
      preDelete: (doc) => (doc.title === "keep" ? null : doc),
      postDelete: (doc) => {
        calls.push(`postDelete:${doc.title}`);
      },
    },
    "/lifecycle",
  );
  const created = await as(http).post("/lifecycle", { title: "first" }).expect(201);
  const id = created.body.data.id;
  const updated = await as(http).patch(`/lifecycle/${id}`, { title: "second" }).expect(200);
  t.is(updated.body.data.label, "updated");
  const refused = await as(http).patch(`/lifecycle/${id}`, { title: "deny" }).expect(403);
  t.is(refused.body.errors[0].code, RestErrors.HOOK_DENIED.code);
  t.is((await Task.findById(id).lean())?.title, "second");

  const kept = await as(http).post("/lifecycle", { title: "keep" }).expect(201);
  await as(http).delete(`/lifecycle/${kept.body.data.id}`).expect(403);
  t.is((await Task.findById(kept.body.data.id).lean())?.title, "keep");
  await as(http).delete(`/lifecycle/${id}`).expect(204);
  t.deepEqual(calls, [
    "postCreate:first:function:POST",
    "preUpdate:first",
    "postUpdate:first->second:updated",
    "preUpdate:second",
    "postCreate:keep:function:POST",
    "postDelete:second",
  ]);
});

test("preList narrows the filter (null → 403); postList replaces the page", async (t) => {
  const http = await appFor(
    t,
    {
      preList: (filter, req) => (req.headers["x-block"] === undefined ? { ...filter, label: "listed" } : null),
      postList: (docs) => docs.map((doc) => ({ ...doc, seen: true })),
      queryFields: ["title"],
    },
    "/listing",
  );
  await Task.create([{ title: "a", label: "listed" }, { title: "b", label: "hidden" }]);
  const page = await as(http).get("/listing").expect(200);
  t.deepEqual(
    page.body.data.map((doc: { title: string; seen: boolean }) => [doc.title, doc.seen]),
    [["a", true]],
  );
  t.is(page.body.total, 1);
  const denied = await as(http).get("/listing").set("X-Block", "1").expect(403);
  t.is(denied.body.errors[0].code, RestErrors.HOOK_DENIED.code);
});

test("responseHandler shapes every response document, list items included", async (t) => {
  const methods: string[] = [];
  const http = await appFor(
    t,
    {
      responseHandler: (doc, method) => {
        methods.push(method);
        return { id: doc.id, title: String(doc.title).toUpperCase() };
      },
      queryFilter: () => ({ label: "shaped" }),
      preCreate: (body) => ({ ...body, label: "shaped" }),
    },
    "/shaped",
  );
  const created = await as(http).post("/shaped", { title: "abc" }).expect(201);
  t.deepEqual(created.body.data, { id: created.body.data.id, title: "ABC" });
  const read = await as(http).get(`/shaped/${created.body.data.id}`).expect(200);
  t.deepEqual(read.body.data, { id: created.body.data.id, title: "ABC" });
  const page = await as(http).get("/shaped").expect(200);
  t.deepEqual(page.body.data, [{ id: created.body.data.id, title: "ABC" }]);
  await as(http).patch(`/shaped/${created.body.data.id}`, { title: "def" }).expect(200);
  t.deepEqual(methods, ["create", "read", "list", "update"]);
});

/** Collects what the app's logger warns until the test ends (the test app logs through the global logger). */
function captureWarnings(t: import("ava").ExecutionContext): string[] {
  const warnings: string[] = [];
  const originalWarn = logger.warn;
  logger.warn = ((message: string) => {
    warnings.push(message);
    return logger;
  }) as typeof logger.warn;
  t.teardown(() => {
    logger.warn = originalWarn;
  });
  return warnings;
}

test.serial("deprecated transformer and responseSerializer still work and warn once", async (t) => {
  const warnings = captureWarnings(t);
  const transformer: ModelRouterOptions<TaskFields>["transformer"] = {
    transform: (body) => ({ ...body, label: "transformed" }),
    serialize: (doc, user) => ({ title: doc.title, label: doc.label, viewer: user?.email ?? null }),
  };
  const httpA = await appFor(t, { transformer }, "/legacy-a");
  await appFor(t, { transformer }, "/legacy-b");
  const httpC = await appFor(t, { responseSerializer: (doc, method) => ({ title: doc.title, method }) }, "/legacy-c");
  const alice = tokens.user("legacy-alice");
  const created = await as(httpA, alice.auth).post("/legacy-a", { title: "old" }).expect(201);
  t.deepEqual(created.body.data, { title: "old", label: "transformed", viewer: "legacy-alice@example.test" });
  const serialized = await as(httpC).post("/legacy-c", { title: "older" }).expect(201);
  t.deepEqual(serialized.body.data, { title: "older", method: "create" });
  t.is(warnings.filter((message) => message.includes("`transformer` is deprecated")).length, 1);
  t.is(warnings.filter((message) => message.includes("`responseSerializer` is deprecated")).length, 1);
});

test("mcp, sync and admin options are kept on the router for later plugins", (t) => {
  const router = modelRouter("/kept", Task, {
    permissions: open,
    mcp: { excludeFields: ["label"], methods: ["list", "read"] },
    sync: { scope: { type: "owner" } },
    admin: { displayName: "Tasks", listFields: ["title", "priority"] },
  });
  t.is(router.name, "model:kept");
  t.deepEqual(router.options.mcp, { excludeFields: ["label"], methods: ["list", "read"] });
  t.deepEqual(router.options.sync, { scope: { type: "owner" } });
  t.is(router.options.admin?.displayName, "Tasks");
  // A synced router cannot start without the sync plugin that sequences its writes.
  t.deepEqual(router.dependsOn, ["database", "sync"]);
  const legacy = modelRouter(Task, { permissions: open, admin: { displayName: "Tasks", listFields: ["title"] } });
  t.is(legacy.options.admin?.displayName, "Tasks");
  t.is(legacy.name, "model:hook-task");
});

test("generated routes coerce types and, with additionalProperties: remove, strip and report unknown fields", async (t) => {
  const removed: string[][] = [];
  const http = await appFor(t, { validation: { additionalProperties: "remove", onAdditionalPropertiesRemoved: (properties) => removed.push(properties) } }, "/lenient");
  const created = await as(http).post("/lenient", { title: "x", priority: "3", colour: "red" }).expect(201);
  t.is(created.body.data.priority, 3);
  t.false("colour" in created.body.data);
  t.deepEqual(removed, [["colour"]]);
  // Read-only fields and operators are still refused outright.
  const readOnly = await as(http).post("/lenient", { title: "x", created: "2000-01-01T00:00:00Z" }).expect(400);
  t.is(readOnly.body.errors[0].code, ValidationErrors.READ_ONLY_FIELD.code);
  const invalid = await as(http).post("/lenient", { title: "x", priority: 9 }).expect(400);
  t.is(invalid.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
  t.is(invalid.body.errors[0].source.pointer, "/priority");
});

test("app settings reach generated routes: onValidationError replaces the error, coerceTypes off rejects strings", async (t) => {
  const http = await appFor(t, {}, "/strict-settings", [
    tokens.plugin(),
    configureOpenApiValidator({
      coerceTypes: false,
      onValidationError: (issues) => new APIError({ status: 422, title: "Unprocessable", code: "CUSTOM_INVALID", meta: { count: issues.length } }),
    }),
  ]);
  const response = await as(http).post("/strict-settings", { title: "x", priority: "3" }).expect(422);
  t.is(response.body.errors[0].code, "CUSTOM_INVALID");
  const missing = await as(http).post("/strict-settings", {}).expect(422);
  t.is(missing.body.errors[0].meta.count, 1);
});

test("validateResponses checks generated responses against their schema", async (t) => {
  const http = await appFor(t, { postList: (docs) => docs.map((doc) => ({ ...doc, priority: "not a number" })), queryFilter: () => ({ label: "checked" }) }, "/checked", [
    tokens.plugin(),
    configureOpenApiValidator({ validateResponses: true }),
  ]);
  await Task.create({ title: "c", label: "checked", priority: 2 });
  const response = await as(http).get("/checked").expect(500);
  t.is(response.body.errors[0].code, RestErrors.INVALID_RESPONSE.code);
});

test.serial("starting a router warns about schema fields without a description", async (t) => {
  const warnings = captureWarnings(t);
  const Bare = mongoose.model("HookBare", new mongoose.Schema({ a: String, b: { type: Number, description: "documented" } }, { strict: "throw" }));
  const app = await buildRestApp("SvcApp", [spec("/bare", Bare, { permissions: { list: any } })]);
  t.teardown(() => app.stop());
  t.true(warnings.some((message) => message.includes("HookBare") && message.includes("a") && !message.includes("b,")));
});

test.serial("list: [IsOwner] without a queryFilter warns at start that lists are not filtered", async (t) => {
  const warnings = captureWarnings(t);
  const app = await buildRestApp("SvcApp", [
    spec("/unfiltered-owned", Task, { permissions: { list: [Permissions.IsOwner] } }),
    spec("/filtered-owned", Task, { permissions: { list: [Permissions.IsOwner] }, queryFilter: OwnerQueryFilter }),
  ]);
  t.teardown(() => app.stop());
  const listWarnings = warnings.filter((message) => message.includes("does not filter lists"));
  t.is(listWarnings.length, 1, listWarnings.join("\n"));
  t.regex(listWarnings[0]!, /\/unfiltered-owned.*add queryFilter: OwnerQueryFilter/);
});
