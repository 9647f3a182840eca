import test from "ava";
import express, { type RequestHandler } from "express";
import mongoose from "mongoose";
import request from "supertest";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { APIError } from "../../kernel/api-error.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { createSvcLogger } from "../logging/create-logger.js";
import { LogCapture } from "../logging/log-capture.js";
import { validateModelRequestBody } from "../rest/model-body-validator.js";
import { createValidator, validateQueryParams, validateRequestBody } from "./request-validators.js";
import { configureOpenApiValidator, DEFAULT_VALIDATOR_SETTINGS, type OpenApiValidatorOptions } from "./validator-settings.js";
import { ValidationErrors } from "./index.js";

const Gadget = mongoose.model(
  "ValidatorGadget",
  new mongoose.Schema(
    {
      name: { type: String, required: true, description: "Name" },
      size: { type: Number, min: 1, description: "Size" },
      created: { type: Date, description: "Server-set" },
    },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  ),
);

const echo: RequestHandler = (req, res) => {
  res.json({ body: req.body, query: req.query });
};

function routes(): SvcPlugin {
  return {
    name: "validator-routes",
    start(ctx) {
      const router = express.Router();
      router.post("/body", validateRequestBody({ name: { type: "string", required: true }, size: { type: "integer", minimum: 1 } }), echo);
      router.post("/whole", validateRequestBody({ type: "object", properties: { a: { type: "boolean" } }, required: ["a"], additionalProperties: false }), echo);
      router.get("/query", validateQueryParams({ year: { type: "integer", minimum: 2000, required: true }, flag: { type: "boolean" } }), echo);
      router.post("/both", createValidator({ query: { dry: { type: "boolean" } }, body: { text: { type: "string", required: true } } }), echo);
      router.post("/model", validateModelRequestBody(Gadget), echo);
      router.post("/model-update", validateModelRequestBody(Gadget, { mode: "update" }), echo);
      router.post("/route-off", validateRequestBody({ name: { type: "string", required: true } }, { enabled: false }), echo);
      ctx.resolve(HTTP_ROUTER).use(router);
    },
  };
}

async function appWith(t: import("ava").ExecutionContext, settings?: OpenApiValidatorOptions) {
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, handleSignals: false });
  if (settings) app.register(configureOpenApiValidator(settings));
  app.register(routes());
  const http = await app.build();
  t.teardown(() => app.stop());
  return http;
}

test("defaults are SPEC §8's", (t) => {
  t.deepEqual({ ...DEFAULT_VALIDATOR_SETTINGS }, {
    validateRequests: true,
    validateResponses: false,
    coerceTypes: true,
    removeAdditional: true,
    logValidationErrors: true,
  });
});

test("validateRequestBody coerces, strips undeclared properties and reports them", async (t) => {
  const removed: string[][] = [];
  const http = await appWith(t, { onAdditionalPropertiesRemoved: (properties) => removed.push(properties) });
  const response = await request(http).post("/body").send({ name: "a", size: "3", extra: true }).expect(200);
  t.deepEqual(response.body.body, { name: "a", size: 3 });
  t.deepEqual(removed, [["extra"]]);
});

test("validateRequestBody failures carry SPEC §7's body", async (t) => {
  const http = await appWith(t);
  const response = await request(http).post("/body").send({ size: 0 }).expect(400);
  const error = response.body.errors[0];
  t.is(error.status, "400");
  t.is(error.title, "Request validation failed");
  t.is(error.code, ValidationErrors.INVALID_BODY.code);
  t.is(error.source.pointer, "/name");
  const issues = JSON.parse(error.meta.validationErrors) as Array<{ path: string; message: string }>;
  t.deepEqual(issues.map((issue) => issue.path).sort(), ["name", "size"]);
  t.regex(error.detail, /name/);
});

test("whole JSON schemas are used as given", async (t) => {
  const http = await appWith(t);
  await request(http).post("/whole").send({ a: true }).expect(200);
  await request(http).post("/whole").send({}).expect(400);
  t.pass();
});

test("removeAdditional off keeps undeclared properties; coerceTypes off rejects strings", async (t) => {
  const http = await appWith(t, { removeAdditional: false, coerceTypes: false });
  const kept = await request(http).post("/body").send({ name: "a", extra: 1 }).expect(200);
  t.is(kept.body.body.extra, 1);
  await request(http).post("/body").send({ name: "a", size: "3" }).expect(400);
});

test("validateRequests off (app) or enabled: false (route) skip validation", async (t) => {
  const off = await appWith(t, { validateRequests: false });
  await request(off).post("/body").send({}).expect(200);
  const on = await appWith(t);
  await request(on).post("/route-off").send({}).expect(200);
  t.pass();
});

test("onValidationError replaces the error, or lets the request on when it returns nothing", async (t) => {
  const custom = await appWith(t, { onValidationError: (issues) => new APIError({ status: 422, title: "Nope", code: "MY_INVALID", meta: { n: issues.length } }) });
  const response = await request(custom).post("/body").send({}).expect(422);
  t.is(response.body.errors[0].code, "MY_INVALID");
  const seen: string[] = [];
  const lenient = await appWith(t, { onValidationError: (issues) => void seen.push(issues[0]!.path) });
  await request(lenient).post("/body").send({}).expect(200);
  t.deepEqual(seen, ["name"]);
});

test("validateQueryParams coerces the query and pins it for later handlers", async (t) => {
  const http = await appWith(t);
  const response = await request(http).get("/query?year=2024&flag=true").expect(200);
  t.deepEqual(response.body.query, { year: 2024, flag: true });
  const failed = await request(http).get("/query?year=1999").expect(400);
  t.is(failed.body.errors[0].code, ValidationErrors.INVALID_QUERY.code);
  t.is(failed.body.errors[0].source.parameter, "year");
  await request(http).get("/query").expect(400);
});

test("createValidator checks the query, then the body", async (t) => {
  const http = await appWith(t);
  const response = await request(http).post("/both?dry=true").send({ text: "x" }).expect(200);
  t.deepEqual(response.body, { body: { text: "x" }, query: { dry: true } });
  const badQuery = await request(http).post("/both?dry=maybe").send({ text: "x" }).expect(400);
  t.is(badQuery.body.errors[0].code, ValidationErrors.INVALID_QUERY.code);
  const badBody = await request(http).post("/both").send({}).expect(400);
  t.is(badBody.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
});

test("validateModelRequestBody derives the schema from the model", async (t) => {
  const http = await appWith(t, { removeAdditional: false });
  await request(http).post("/model").send({ name: "g", size: 2 }).expect(200);
  await request(http).post("/model").send({ size: 2 }).expect(400);
  await request(http).post("/model").send({ name: "g", size: 0 }).expect(400);
  // Server-set fields are not part of the body schema.
  await request(http).post("/model").send({ name: "g", created: "2020-01-01T00:00:00Z" }).expect(400);
  await request(http).post("/model-update").send({ size: 4 }).expect(200);
  t.pass();
});

test("settings belong to each app: two apps in one process differ", async (t) => {
  const stripping = await appWith(t);
  const keeping = await appWith(t, { removeAdditional: false });
  const stripped = await request(stripping).post("/body").send({ name: "a", extra: 1 }).expect(200);
  const kept = await request(keeping).post("/body").send({ name: "a", extra: 1 }).expect(200);
  t.false("extra" in stripped.body.body);
  t.is(kept.body.body.extra, 1);
});

test("validateRequestBody refuses a key no database can store (NUL) at any depth, even with validation off", async (t) => {
  const http = await appWith(t);
  for (const [path, body, pointer] of [
    ["/body", { name: "x", "a\u0000b": 1 }, "/a\u0000b"],
    ["/model", { name: "x", size: 2, extra: { nested: [{ "k\u0000": 1 }] } }, "/extra/nested/0/k\u0000"],
    ["/route-off", { name: "x", meta: { "\u0000": true } }, "/meta/\u0000"],
  ] as const) {
    const response = await request(http).post(path).send(body).expect(400);
    t.is(response.body.errors[0].code, ValidationErrors.OPERATOR_IN_BODY.code, path);
    t.is(response.body.errors[0].source.pointer, pointer, path);
  }
  // A NUL inside a value is data, and is left to the schema.
  t.is((await request(http).post("/body").send({ name: "a\u0000b" }).expect(200)).body.body.name, "a\u0000b");
});

test("a failed validation is logged with the request's full path, mount prefix included", async (t) => {
  const logs = new LogCapture();
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, handleSignals: false, logger: createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [logs] }) });
  app.register({
    name: "mounted-validator",
    start(ctx) {
      const router = express.Router();
      router.post("/items", validateRequestBody({ name: { type: "string", required: true } }), echo);
      ctx.resolve(HTTP_ROUTER).use("/v1", router);
    },
  });
  const http = await app.build();
  t.teardown(() => app.stop());
  await request(http).post("/v1/items?dry=1").send({}).expect(400);
  t.regex(logs.text(), /Request body validation failed for POST \/v1\/items(?![?\w/])/, "mount prefix in, query string out");
});
