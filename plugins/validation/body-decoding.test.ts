import test from "ava";
import mongoose from "mongoose";
import { gzipSync } from "node:zlib";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { authPlugin } from "../auth/index.js";
import { featureFlagsPlugin } from "../feature-flags/index.js";
import { webhookSignatureMiddleware } from "../notifiers/index.js";
import { modelRouter, Permissions } from "../rest/index.js";
import { ClientFaultWatch } from "../../test/support/client-fault-watch.js";
import { TestUser } from "../../test/support/auth-test-app.js";
import { sendRaw } from "../../test/support/raw-http.js";
import { validateRequestBody } from "./index.js";

test.after.always(() => stopTestDatabase());

const Note = mongoose.model("BodyDecodingNote", new mongoose.Schema({ text: { type: String, description: "Text" } }, { strict: "throw" }));

const manualRoutes: SvcPlugin = {
  name: "manual-body-routes",
  start(ctx) {
    const router = ctx.resolve(HTTP_ROUTER);
    router.post("/search", validateRequestBody({ query: { type: "string" } }), (req, res) => res.json({ data: req.body }));
    // A webhook sent as text: read by the middleware's own raw parser, not the app's JSON one.
    router.post("/hooks", webhookSignatureMiddleware({ secret: "webhook-secret-for-tests" }), (_req, res) => res.status(204).end());
  },
};

async function startApp(t: import("ava").ExecutionContext) {
  const watch = new ClientFaultWatch();
  const app = watch
    .attach(await createTestApp({ port: 0, host: "127.0.0.1", logger: watch.logger }))
    .register(authPlugin({ userModel: TestUser }))
    .register(modelRouter("/notes", Note, { permissions: { create: [Permissions.IsAny], update: [Permissions.IsAny] } }))
    .register(featureFlagsPlugin())
    .register(manualRoutes);
  const { url } = await app.start();
  t.teardown(() => app.stop());
  return { url, watch };
}

/** Bytes that claim an encoding they do not have, and a gzip stream cut short. */
const UNDECODABLE: ReadonlyArray<[encoding: string, body: Buffer]> = [
  ["gzip", Buffer.from("not gzip at all")],
  ["deflate", Buffer.from("not deflate either")],
  ["br", Buffer.from("definitely not brotli")],
  ["GZip", Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff])],
  ["gzip", gzipSync(JSON.stringify({ email: "a@b.co", password: "long enough password" })).subarray(0, 12)],
];

const BODY_ROUTES: ReadonlyArray<[method: string, path: string, contentType: string]> = [
  ["POST", "/auth/signup", "application/json"],
  ["POST", "/auth/login", "application/json"],
  ["POST", "/auth/refresh_token", "application/json"],
  ["POST", "/notes", "application/json"],
  ["PATCH", `/notes/${new mongoose.Types.ObjectId().toHexString()}`, "application/merge-patch+json"],
  ["POST", "/feature-flags/flags", "application/json"],
  ["POST", "/search", "application/json"],
  ["POST", "/hooks", "text/plain"],
];

test("a body whose Content-Encoding does not decode is 400 HTTP_UNDECODABLE_BODY on every body route, anonymous, and a client fault", async (t) => {
  const { url, watch } = await startApp(t);
  for (const [method, path, contentType] of BODY_ROUTES) {
    for (const [encoding, body] of UNDECODABLE) {
      const answer = await sendRaw(url, { method, path, headers: { "content-type": contentType, "content-encoding": encoding }, body });
      const label = `${method} ${path} ${encoding}`;
      t.is(answer.status, 400, label);
      t.is(answer.json().errors[0]!.code, HttpErrors.UNDECODABLE_BODY.code, label);
      t.is(typeof answer.json().requestId, "string", label);
    }
  }
  watch.assertNoServerFault(t);
});

test("an encoding the server does not support stays 415 HTTP_UNSUPPORTED_ENCODING; a valid gzip body is read", async (t) => {
  const { url, watch } = await startApp(t);
  for (const encoding of ["compress", "x-unknown", "gzip, gzip"]) {
    const answer = await sendRaw(url, { method: "POST", path: "/auth/login", headers: { "content-type": "application/json", "content-encoding": encoding }, body: "{}" });
    t.is(answer.status, 415, encoding);
    t.is(answer.json().errors[0]!.code, HttpErrors.UNSUPPORTED_ENCODING.code, encoding);
  }
  const signup = await sendRaw(url, {
    method: "POST",
    path: "/auth/signup",
    headers: { "content-type": "application/json", "content-encoding": "gzip" },
    body: gzipSync(JSON.stringify({ email: "gzip-user@example.com", password: "a long enough password" })),
  });
  t.is(signup.status, 201);
  const note = await sendRaw(url, { method: "POST", path: "/notes", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: gzipSync('{"text":"zipped"}') });
  t.is(note.status, 201);
  t.is(note.json<{ data: { text: string } }>().data.text, "zipped");
  watch.assertNoServerFault(t);
});
