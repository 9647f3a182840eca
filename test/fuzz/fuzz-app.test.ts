// The harness tested on apps whose defects are known: each planted defect (a 5xx on a NUL byte,
// a stack trace in an error body, a write before a refusal) must make the run fail with the seed
// and the offending request in its message, and an app whose routes are all correct must pass.
// Serial: every app in this process shares one database, and a concurrent test's writes would
// look like writes the app under test made while refusing.
import test from "ava";
import mongoose from "mongoose";
import type { RequestHandler } from "express";
import {
  HTTP_ROUTER,
  modelRouter,
  operatorKeys,
  Permissions,
  requestValidationError,
  requireJsonBody,
  validateRequestBody,
  ValidationErrors,
  type SvcLogger,
  type SvcPlugin,
} from "../../index.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { fuzzApp } from "./fuzz-app.js";

test.after.always(() => stopTestDatabase());

const SEED = 4242;

const Note = mongoose.model(
  "FuzzHarnessNote",
  new mongoose.Schema(
    {
      text: { type: String, required: true, maxlength: 100, description: "The note" },
      pinned: { type: Boolean, default: false, description: "Shown first" },
      labels: { type: [String], description: "Free-form labels" },
    },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  ),
);

/**
 * A documented route `POST <path>` taking `{text}`, checked the way the framework's own routes
 * are (JSON only, no `$` keys, the schema), then answered by `handle`: each planted route is
 * correct but for the one defect its handler carries.
 */
function documentedRoute(
  path: string,
  handle: (text: string, requestId: string, logger: SvcLogger) => Promise<{ status: number; body: unknown }>,
): SvcPlugin {
  return {
    name: `planted${path.replace(/\//g, "-")}`,
    dependsOn: ["database"],
    start(ctx) {
      const refuseOperators: RequestHandler = (req, _res, next) => {
        requireJsonBody(req);
        const operators = operatorKeys(req.body);
        if (operators.length > 0) throw requestValidationError(operators, "body", ValidationErrors.OPERATOR_IN_BODY);
        next();
      };
      ctx.resolve(HTTP_ROUTER).post(path, refuseOperators, validateRequestBody({ text: { type: "string", required: true } }), async (req, res) => {
        const { status, body } = await handle((req.body as { text: string }).text, req.requestId ?? "", ctx.logger);
        res.status(status).json(body);
      });
      ctx.openapi.addOperation("post", path, {
        operationId: `plant${path.replace(/\W/g, "")}`,
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false } } },
        },
        responses: { 200: { description: "Accepted" } },
      });
    },
  };
}

const refusal = (requestId: string) => ({ status: 400, body: { errors: [{ status: "400", title: "Empty text", code: "PLANTED_EMPTY_TEXT" }], requestId } });

test.serial("a route that fails on a NUL byte in its body makes the run fail, naming the seed and the request", async (t) => {
  const defect = documentedRoute("/echo", async (text) => {
    // The planted defect: an unchecked assumption that crashes on a NUL byte.
    if (text.includes("\u0000")) throw new Error("NUL reached the handler");
    return { status: 200, body: { data: { text } } };
  });
  const error = await t.throwsAsync(fuzzApp(t, { build: async (options) => (await createTestApp(options)).register(defect), seed: SEED, runs: 3 }));
  t.regex(error.message, new RegExp(`seed ${SEED}`));
  t.regex(error.message, /POST \/echo: failed/);
  t.regex(error.message, /status 500: a server fault/);
  t.regex(error.message, /a string with a NUL inside at \/text/);
  t.regex(error.message, /body \(\d+ bytes\): \{"text":"fuzz\\u0000fuzz"\}/);
  // The server's own log line, found by request id, comes with the failure.
  t.regex(error.message, /NUL reached the handler/);
});

test.serial("an error body carrying a stack trace makes the run fail", async (t) => {
  const leak = documentedRoute("/leaky", async (text, requestId) => {
    if (text.length > 0) return { status: 200, body: { data: { text } } };
    // The planted defect: the error's stack sent to the client.
    return { status: 400, body: { errors: [{ status: "400", title: "Empty text", detail: new Error("empty").stack }], requestId } };
  });
  const error = await t.throwsAsync(fuzzApp(t, { build: async (options) => (await createTestApp(options)).register(leak), seed: SEED, runs: 3 }));
  t.regex(error.message, /POST \/leaky: failed/);
  t.regex(error.message, /the body leaks a (?:stack frame|source file position|dependency path)/);
});

test.serial("a route that writes before it refuses makes the run fail", async (t) => {
  const sloppy = documentedRoute("/sloppy", async (text, requestId) => {
    // The planted defect: the record is saved before the input is checked.
    await Note.collection.insertOne({ text });
    return text.length > 0 ? { status: 200, body: { data: { text } } } : refusal(requestId);
  });
  const error = await t.throwsAsync(fuzzApp(t, { build: async (options) => (await createTestApp(options)).register(sloppy), seed: SEED, runs: 3 }));
  t.regex(error.message, /POST \/sloppy: failed/);
  t.regex(error.message, /refused with 400, yet wrote to fuzzharnessnotes/);
});

test.serial("a refusal logged as an error makes the run fail", async (t) => {
  const noisy = documentedRoute("/noisy", async (text, requestId, logger) => {
    if (text.length > 0) return { status: 200, body: { data: { text } } };
    // The planted defect: a client's mistake reported as a server error.
    logger.error("Empty text", { requestId });
    return refusal(requestId);
  });
  const error = await t.throwsAsync(fuzzApp(t, { build: async (options) => (await createTestApp(options)).register(noisy), seed: SEED, runs: 3 }));
  t.regex(error.message, /POST \/noisy: failed/);
  t.regex(error.message, /answered 400, yet logged an error/);
});

test.serial("an app whose routes are all correct passes", async (t) => {
  // Open to anonymous callers, so every hostile input reaches the generated routes' own checks
  // (and the harness runs without accounts: forged tokens are then all it sends).
  const everyone = [Permissions.IsAny];
  const summary = await fuzzApp(t, {
    build: async (options) =>
      (await createTestApp(options)).register(
        modelRouter("/notes", Note, {
          permissions: { list: everyone, create: everyone, read: everyone, update: everyone, delete: everyone },
          queryFields: ["pinned", "labels"],
        }),
      ),
    seed: SEED,
    runs: 4,
  });
  t.true(summary.operations.includes("PATCH /notes/{id}"));
  t.true(summary.requests > 0);
});
