import test from "ava";
import nock from "nock";
import express from "express";
import request from "supertest";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { hasErrorCode } from "../../kernel/errors.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { WebhookSignatureErrors } from "./errors.js";
import { isValidWebhookSignature, signWebhookPayload, verifyWebhookSignature } from "./webhook-signature.js";
import { webhookSignatureMiddleware } from "./webhook-signature-middleware.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

const SECRET = "whsec_test_secret";
const silent = { debug() {}, info() {}, warn() {}, error() {} };

test("sign and verify round-trip; the bare hex form is accepted", (t) => {
  const payload = '{"event":"paid","amount":100}';
  const signature = signWebhookPayload(payload, SECRET);
  t.regex(signature, /^sha256=[0-9a-f]{64}$/);
  t.notThrows(() => verifyWebhookSignature({ payload, signature, secret: SECRET }));
  t.notThrows(() => verifyWebhookSignature({ payload: Buffer.from(payload), signature: signature.slice(7), secret: SECRET }));
});

test("tampered payloads, wrong secrets and malformed signatures are invalid", (t) => {
  const payload = '{"amount":100}';
  const signature = signWebhookPayload(payload, SECRET);
  for (const [body, sig, secret] of [
    ['{"amount":1000}', signature, SECRET],
    [payload, signature, "other-secret"],
    [payload, "sha256=zz", SECRET],
    [payload, "md5=abc", SECRET],
  ] as const) {
    const error = t.throws(() => verifyWebhookSignature({ payload: body, signature: sig, secret }));
    t.true(hasErrorCode(error, WebhookSignatureErrors.SIGNATURE_INVALID));
    t.false(isValidWebhookSignature({ payload: body, signature: sig, secret }));
  }
});

test("a missing signature and a missing secret have their own codes; WEBHOOK_SECRET is read from the environment", (t) => {
  const missing = t.throws(() => verifyWebhookSignature({ payload: "x", signature: undefined, secret: SECRET }));
  t.true(hasErrorCode(missing, WebhookSignatureErrors.SIGNATURE_MISSING));
  const noSecret = t.throws(() => verifyWebhookSignature({ payload: "x", signature: "sha256=00", env: {} }));
  t.true(hasErrorCode(noSecret, WebhookSignatureErrors.SECRET_MISSING));
  t.true(isValidWebhookSignature({ payload: "x", signature: signWebhookPayload("x", SECRET), env: { WEBHOOK_SECRET: SECRET } }));
});

async function appWithWebhook() {
  const plugin: SvcPlugin = {
    name: "webhooks",
    start(ctx) {
      const router = ctx.resolve(HTTP_ROUTER);
      router.post("/webhooks/billing", webhookSignatureMiddleware({ env: ctx.config.env }), (req, res) => res.json({ received: req.body }));
      router.post("/webhooks/form", webhookSignatureMiddleware({ header: "x-signature", env: ctx.config.env }), (req, res) =>
        res.json({ raw: req.rawBody?.toString("utf8") }),
      );
    },
  };
  const app = new SvcApp({ env: { NODE_ENV: "test", WEBHOOK_SECRET: SECRET }, database: false, handleSignals: false, logger: silent }).register(plugin);
  return { app, http: await app.build() };
}

/** Posts `body` as `contentType` with `signature` in `header`. */
function postSigned(http: express.Express, path: string, body: string, headers: { contentType: string; header: string; signature: string }) {
  return request(http).post(path).set("content-type", headers.contentType).set(headers.header, headers.signature).send(body);
}

test("middleware: JSON webhooks are verified on the bytes the app's JSON parser kept", async (t) => {
  const { app, http } = await appWithWebhook();
  t.teardown(() => app.stop());
  // Spacing that re-serialisation would change: the check must use the raw bytes.
  const raw = '{ "event" : "paid",  "amount": 100 }';
  const json = { contentType: "application/json", header: "x-webhook-signature" };
  const ok = await postSigned(http, "/webhooks/billing", raw, { ...json, signature: signWebhookPayload(raw, SECRET) }).expect(200);
  t.deepEqual(ok.body.received, { event: "paid", amount: 100 });

  const bad = await postSigned(http, "/webhooks/billing", raw, { ...json, signature: signWebhookPayload('{"event":"paid","amount":1}', SECRET) }).expect(401);
  t.is(bad.body.errors[0].code, WebhookSignatureErrors.SIGNATURE_INVALID.code);

  const missing = await request(http).post("/webhooks/billing").send({ event: "paid" }).expect(401);
  t.is(missing.body.errors[0].code, WebhookSignatureErrors.SIGNATURE_MISSING.code);
});

test("middleware: bodies the JSON parser skips are read raw by the middleware", async (t) => {
  const { app, http } = await appWithWebhook();
  t.teardown(() => app.stop());
  const form = "event=paid&amount=100";
  const response = await postSigned(http, "/webhooks/form", form, {
    contentType: "application/x-www-form-urlencoded",
    header: "x-signature",
    signature: signWebhookPayload(form, SECRET),
  }).expect(200);
  t.is(response.body.raw, form);
});

test("middleware: without WEBHOOK_SECRET the request fails as a server error, not as the sender's fault", async (t) => {
  const server = express();
  server.post("/hook", webhookSignatureMiddleware({ env: {} }), (_req, res) => res.sendStatus(204));
  server.use(((error, _req, res, _next) => res.status((error as { status?: number }).status ?? 500).json({ code: (error as { code?: string }).code })) as express.ErrorRequestHandler);
  const response = await request(server).post("/hook").send("x").expect(500);
  t.is(response.body.code, WebhookSignatureErrors.SECRET_MISSING.code);
});

test("middleware: a body parsed without raw capture is reported, not silently trusted", async (t) => {
  const server = express();
  server.use(express.json());
  server.post("/hook", webhookSignatureMiddleware({ secret: SECRET }), (_req, res) => res.sendStatus(204));
  server.use(((error, _req, res, _next) => res.status(500).json({ code: (error as { code?: string }).code })) as express.ErrorRequestHandler);
  const response = await request(server).post("/hook").set("x-webhook-signature", "sha256=00").send({ a: 1 }).expect(500);
  t.is(response.body.code, WebhookSignatureErrors.RAW_BODY_UNAVAILABLE.code);
});
