import test from "ava";
import { Validator } from "@seriousme/openapi-schema-validator";
import mongoose from "mongoose";
import request from "supertest";
import { modelRouter, Permissions } from "../index.js";
import { generateKeyPairSync } from "node:crypto";
import { adminPlugin } from "../plugins/admin/index.js";
import { commsPlugin } from "../plugins/comms/index.js";
import { SendGridMailer, TwilioSmsSender } from "../plugins/comms/providers.js";
import { featureFlagsPlugin } from "../plugins/feature-flags/index.js";
import { isDeletedPlugin } from "../plugins/rest/index.js";
import { syncApp, syncPlugin } from "../plugins/sync/index.js";
import { authTestApp, loopbackOnlyNetwork } from "../test/support/auth-test-app.js";
import { documentedAnswerProblem } from "../test/support/documented-answer.js";
import { createUser, loginAs, stopTestDatabase } from "./testing.js";

// Checks the whole served document rather than one plugin's part, so a plugin added to this app
// later is held to the same rules without a test of its own.

loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

const strict = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };
const Note = mongoose.model("OpenApiDocNote", new mongoose.Schema({ text: { type: String, description: "Text" } }, strict));
const syncedSchema = new mongoose.Schema({ _id: { type: String, description: "Client-minted id" }, title: { type: String, description: "Title" }, ownerId: { type: String, description: "Owner" } }, strict);
syncedSchema.plugin(isDeletedPlugin);
syncedSchema.plugin(syncPlugin);
const SyncedTodo = mongoose.model("OpenApiDocSyncedTodo", syncedSchema);

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
type Operation = { operationId?: string; tags?: string[] };
type Document = { paths: Record<string, Record<string, Operation>>; tags?: Array<{ name: string; description?: string }> };

let apps = 0;
const WEBHOOK_KEY = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey.export({ format: "der", type: "spki" }).toString("base64");

async function servedDocument(t: import("ava").ExecutionContext): Promise<Document> {
  return (await servedApp(t)).document;
}

async function servedApp(t: import("ava").ExecutionContext): Promise<{ app: import("../index.js").SvcApp; http: import("express").Express; document: Document }> {
  // Tests run concurrently: each app registers its flag provider under its own OpenFeature domain.
  const openFeatureDomain = `openapi-document-test-${++apps}`;
  const { app, http } = await authTestApp(
    t,
    { githubAuth: { clientId: "gh", clientSecret: "gh-secret", callbackURL: "http://localhost:3000/auth/github/callback", allowedReturnOrigins: ["https://app.example.com"] } },
    {},
    (app) =>
      app
        .register(modelRouter("/notes", Note, { permissions: { list: [Permissions.IsAny], create: [Permissions.IsAuthenticated], read: [Permissions.IsAny], update: [Permissions.IsOwner], delete: [Permissions.IsOwner] }, queryFields: ["text"], admin: { displayName: "Notes", listFields: ["text"] } }))
        .register(featureFlagsPlugin({ openFeatureDomain, changeDetection: "poll" }))
        .register(modelRouter("/synced-todos", SyncedTodo, { permissions: { list: [Permissions.IsOwner], create: [Permissions.IsAuthenticated], read: [Permissions.IsOwner], update: [Permissions.IsOwner] }, sync: { scope: { type: "owner" } } }))
        .register(syncApp())
        // Its models: the notes (their router's admin option), the feature flags and the audit log.
        .register(adminPlugin({ models: [], accessControl: {} }))
        // With both delivery webhooks, so their operations are checked too.
        .register(
          commsPlugin({
            mail: new SendGridMailer({ apiKey: "SG.docs", fromEmail: "team@example.com", webhookVerificationKey: WEBHOOK_KEY, env: {} }),
            sms: new TwilioSmsSender({ accountSid: `AC${"0".repeat(32)}`, authToken: "token", from: "+14155550199", statusCallbackUrl: "https://api.example.com/comms/webhooks/twilio", env: {} }),
          }),
        ),
  );
  return { app, http, document: (await request(http).get("/openapi.json").expect(200)).body as Document };
}

function operationsOf(document: Document): Array<{ where: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation })),
  );
}

test("every operation of an app with REST, auth and feature flags has its own operationId", async (t) => {
  const document = await servedDocument(t);
  const operations = operationsOf(document);
  t.true(operations.length >= 5 + 11 + 8, "REST, auth (JWT and GitHub) and feature-flag operations are all there");
  const seen = new Map<string, string>();
  for (const { where, operation } of operations) {
    t.regex(operation.operationId ?? "", /^[a-z][A-Za-z0-9_]*$/, `${where} has an identifier-like operationId`);
    const previous = seen.get(operation.operationId!);
    t.is(previous, undefined, `${where} reuses ${previous}'s operationId ${operation.operationId}`);
    seen.set(operation.operationId!, where);
    t.false(/(Admin){2}/.test(operation.operationId!), `${where}: ${operation.operationId} doubles Admin`);
  }
  t.regex(seen.get("listAdminAuditLogEntries") ?? "", /^GET \/admin\//, "the audit log's ids name it once");
  t.truthy(seen.get("readAdminAuditLogEntry"));
  t.truthy(seen.get("listAdminOpenApiDocNotes"), "other admin models keep their Admin prefix");
});

test("every operation has one tag, declared once in the document's tags with a description", async (t) => {
  const document = await servedDocument(t);
  const declared = document.tags ?? [];
  t.is(new Set(declared.map((tag) => tag.name)).size, declared.length, "no tag declared twice");
  for (const tag of declared) t.truthy(tag.description, `tag ${tag.name} has a description`);
  const used = new Set<string>();
  for (const { where, operation } of operationsOf(document)) {
    t.is(operation.tags?.length, 1, `${where} has one tag`);
    used.add(operation.tags![0]!);
  }
  t.deepEqual([...used].sort(), declared.map((tag) => tag.name).sort(), "the declared tags are exactly the used ones");
  t.true(used.has("auth") && used.has("feature-flags") && used.has("OpenApiDocNote"));
});

test("the served document validates as OpenAPI 3.1", async (t) => {
  const document = await servedDocument(t);
  const result = await new Validator().validate(document as never);
  t.deepEqual(result.errors ?? [], []);
});

test("a synced model's list operation carries x-svc-sync; the sync routes are documented under one sync tag", async (t) => {
  const document = await servedDocument(t);
  const list = document.paths["/synced-todos"]!.get as Operation & { "x-svc-sync"?: unknown };
  t.deepEqual(list["x-svc-sync"], { collection: "openapidocsyncedtodos", scope: "owner", operations: ["create", "update"] });
  t.is((document.paths["/notes"]!.get as Record<string, unknown>)["x-svc-sync"], undefined);
  const sync = operationsOf(document).filter(({ where }) => where.includes(" /sync/"));
  t.deepEqual(sync.map(({ operation }) => operation.operationId).sort(), ["applySyncMutation", "applySyncMutationBatch", "listSyncStreams", "readSyncEntities", "readSyncKey", "readSyncSnapshot"]);
  t.true(sync.every(({ operation }) => operation.tags?.length === 1 && operation.tags[0] === "sync"));
});

test("real 400 answers (validation, malformed body, malformed path) match the documented 400 of their operation", async (t) => {
  const { http, document } = await servedApp(t);
  const signUp = await request(http).post("/auth/signup").send({ email: "doc-400@example.com", password: "correct horse battery staple" }).expect(201);
  const bearer = `Bearer ${signUp.body.data.token as string}`;
  const answers = [
    ["post", "/notes", await request(http).post("/notes").set("Authorization", bearer).send({ bogus: 1 })],
    ["post", "/notes", await request(http).post("/notes").set("Authorization", bearer).type("json").send("{oops")],
    ["get", "/notes", await request(http).get("/notes?text[$where]=1")],
    ["get", "/notes/{id}", await request(http).get("/notes/%zz")],
    ["patch", "/notes/{id}", await request(http).patch("/notes/%zz").set("Authorization", bearer).send({ text: "x" })],
    ["delete", "/notes/{id}", await request(http).delete("/notes/%zz").set("Authorization", bearer)],
  ] as const;
  t.deepEqual(
    answers.map(([, , answer]) => answer.body.errors[0].code),
    ["VALIDATION_UNKNOWN_FIELD", "HTTP_MALFORMED_BODY", "REST_OPERATOR_NOT_ALLOWED", "HTTP_MALFORMED_PATH", "HTTP_MALFORMED_PATH", "HTTP_MALFORMED_PATH"],
  );
  for (const [method, path, answer] of answers) t.is(documentedAnswerProblem(document, method, path, answer), undefined);
});

test("a body that is not JSON (415) or too large (413) is a documented answer of every model and admin write", async (t) => {
  const { app, http, document } = await servedApp(t);
  const bearer = `Bearer ${await loginAs(app, await createUser(app, { admin: true }))}`;
  const huge = JSON.stringify({ text: "x".repeat(2 * 1024 * 1024) });
  const { id } = (await request(http).post("/notes").set("Authorization", bearer).send({ text: "mine" }).expect(201)).body.data as { id: string };
  const writes = [
    ["post", "/notes", "/notes"],
    ["patch", "/notes/{id}", `/notes/${id}`],
    ["post", "/admin/notes/bulk-update", "/admin/notes/bulk-update"],
  ] as const;
  for (const [method, path, url] of writes) {
    const text = await request(http)[method](url).set("Authorization", bearer).type("text/plain").send("hello");
    t.is(text.status, 415, `${method} ${url}`);
    t.is(documentedAnswerProblem(document, method, path, text), undefined);
    const large = await request(http)[method](url).set("Authorization", bearer).type("json").send(huge);
    t.is(large.status, 413, `${method} ${url}`);
    t.is(documentedAnswerProblem(document, method, path, large), undefined);
  }
});

test("every admin list and read answer, _adminCapabilities included, matches its documented schema", async (t) => {
  const { app, http, document } = await servedApp(t);
  const bearer = `Bearer ${await loginAs(app, await createUser(app, { admin: true }))}`;
  await request(http).post("/admin/notes").set("Authorization", bearer).send({ text: "audited" }).expect(201);
  const lists = Object.entries(document.paths).filter(([, item]) => /^listAdmin/.test(item.get?.operationId ?? ""));
  t.true(lists.length >= 3, "notes, feature flags and the audit log at least");
  for (const [path] of lists) {
    const list = await request(http).get(path).set("Authorization", bearer).expect(200);
    t.is(documentedAnswerProblem(document, "get", path, list), undefined);
    const first = (list.body.data as Array<{ id: string; _adminCapabilities?: unknown }>)[0];
    if (!first) continue;
    t.deepEqual(Object.keys(first._adminCapabilities as object).sort(), ["delete", "update"], path);
    const itemPath = `${path}/{id}`;
    if (!document.paths[itemPath]?.get) continue;
    const read = await request(http).get(`${path}/${first.id}`).set("Authorization", bearer).expect(200);
    t.is(documentedAnswerProblem(document, "get", itemPath, read), undefined);
  }
  const schemas = (document as unknown as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }).components.schemas;
  const notes = (document.paths["/admin/notes"]!.get as unknown as { responses: { 200: { content: { "application/json": { schema: { properties: { data: { items: { $ref: string } } } } } } } } }).responses[200];
  const itemSchema = schemas[notes.content["application/json"].schema.properties.data.items.$ref.split("/").pop()!]!;
  t.truthy(itemSchema.properties?._adminCapabilities, "the documented item names _adminCapabilities");
});

test("a model create's 201 documents the Location header it sends", async (t) => {
  const { app, http, document } = await servedApp(t);
  const bearer = `Bearer ${await loginAs(app, await createUser(app))}`;
  const created = await request(http).post("/notes").set("Authorization", bearer).send({ text: "located" }).expect(201);
  t.is(created.headers.location, `/notes/${created.body.data.id as string}`);
  const answer = (document.paths["/notes"]!.post as unknown as { responses: Record<string, { headers?: Record<string, unknown> }> }).responses["201"]!;
  t.truthy(answer.headers?.Location);
  t.is(documentedAnswerProblem(document, "post", "/notes", created), undefined);
});
