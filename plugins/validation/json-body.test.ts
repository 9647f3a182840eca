import test from "ava";
import express from "express";
import request from "supertest";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { requireJsonBody } from "./json-body.js";
import { validateRequestBody } from "./request-validators.js";

function routes(): SvcPlugin {
  return {
    name: "json-body-routes",
    start(ctx) {
      const router = express.Router();
      const echo: express.RequestHandler = (req, res) => res.json({ body: req.body ?? null });
      router.post("/validated", validateRequestBody({ name: { type: "string" } }), echo);
      router.post("/off", validateRequestBody({ name: { type: "string" } }, { enabled: false }), echo);
      router.post("/own-form-parser", express.urlencoded({ extended: false }), validateRequestBody({ name: { type: "string" } }), echo);
      router.post("/hand-written", (req, res) => {
        requireJsonBody(req);
        res.json({ body: req.body ?? null });
      });
      ctx.resolve(HTTP_ROUTER).use(router);
    },
  };
}

async function appWithRoutes(t: import("ava").ExecutionContext) {
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, handleSignals: false }).register(routes());
  const http = await app.build();
  t.teardown(() => app.stop());
  return http;
}

test("routes that take JSON answer 415 to a form, plain text or a body without a Content-Type", async (t) => {
  const http = await appWithRoutes(t);
  for (const path of ["/validated", "/off", "/hand-written"]) {
    const form = await request(http).post(path).type("form").send({ name: "a" }).expect(415);
    t.is(form.body.errors[0].code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code, path);
    const text = await request(http).post(path).set("Content-Type", "text/plain").send("name=a").expect(415);
    t.is(text.body.errors[0].code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code, path);
    const untyped = await request(http).post(path).send(Buffer.from('{"name":"a"}')).expect(415);
    t.is(untyped.body.errors[0].code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code, path);
  }
});

test("JSON and +json bodies are parsed; requests without a body pass", async (t) => {
  const http = await appWithRoutes(t);
  const json = await request(http).post("/validated").send({ name: "a" }).expect(200);
  t.deepEqual(json.body.body, { name: "a" });
  const vendor = await request(http).post("/validated").set("Content-Type", "application/vnd.api+json; charset=utf-8").send('{"name":"b"}').expect(200);
  t.deepEqual(vendor.body.body, { name: "b" });
  await request(http).post("/hand-written").expect(200);
  await request(http).post("/hand-written").set("Content-Type", "text/plain").set("Content-Length", "0").expect(200);
});

test("a body a parser of the host's own already read is the route's choice, not refused", async (t) => {
  const http = await appWithRoutes(t);
  const response = await request(http).post("/own-form-parser").type("form").send({ name: "a" }).expect(200);
  t.deepEqual(response.body.body, { name: "a" });
});
