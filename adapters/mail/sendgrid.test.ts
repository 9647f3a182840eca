import test from "ava";
import { generateKeyPairSync, sign } from "node:crypto";
import nock from "nock";
import { loopbackOnlyNetwork } from "../../test/support/auth-test-app.js";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { commsMessageModel, CommsErrors } from "../../plugins/comms/index.js";
import { commsTestApp } from "../../test/support/comms-test-app.js";
import { MailAdapterErrors } from "./errors.js";
import { SendGridMailer } from "./sendgrid.js";
import { mailerConformance } from "../conformance/mailer.js";

const API = "https://api.sendgrid.com";

loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

const mailer = () => new SendGridMailer({ apiKey: "SG.test-key", fromEmail: "team@example.com", env: { NODE_ENV: "test" } });

mailerConformance(test, "sendgrid", () => ({
  adapter: mailer(),
  arrange: {
    accepted: () => void nock(API).post("/v3/mail/send").reply(202, "", { "x-message-id": "sg-msg-1" }),
    permanent: () => void nock(API).post("/v3/mail/send").reply(400, { errors: [{ field: "personalizations.0.to.0.email", message: "Does not contain a valid address." }] }),
    transient: () => void nock(API).post("/v3/mail/send").reply(503, { errors: [{ message: "Service unavailable" }] }),
    config: () => void nock(API).post("/v3/mail/send").reply(401, { errors: [{ message: "The provided authorization grant is invalid, expired, or revoked" }] }),
    malformed: () => void nock(API).post("/v3/mail/send").reply(502, "<html>bad gateway</html>", { "content-type": "text/html" }),
  },
  cleanup: () => void nock.cleanAll(),
}));

test.serial("the request carries the key, the sender with its name, sandbox mode under NODE_ENV=test, and the content", async (t) => {
  let body: Record<string, unknown> | undefined;
  let authorization: string | undefined;
  nock(API)
    .post("/v3/mail/send", (sent: Record<string, unknown>) => ((body = sent), true))
    .reply(function () {
      authorization = this.req.headers.authorization as string;
      return [202, "", { "x-message-id": "sg-1" }];
    });
  const adapter = new SendGridMailer({ apiKey: "SG.k", fromEmail: "team@example.com", fromName: "Team", env: { NODE_ENV: "test" } });
  const result = await adapter.sendMail({ to: "ada@example.com", subject: "Hi", text: "Hello", html: "<p>Hello</p>", replyTo: "help@example.com" });
  t.like(result, { accepted: true, providerMessageId: "sg-1" });
  t.true(result.consoleUrl!.startsWith("https://app.sendgrid.com/"));
  t.is(authorization, "Bearer SG.k");
  t.like(body, { from: { email: "team@example.com", name: "Team" }, subject: "Hi", mail_settings: { sandbox_mode: { enable: true } }, reply_to: { email: "help@example.com" } });
});

test.serial("sandbox mode is off by default outside tests, and a rate limit is transient", async (t) => {
  let body: Record<string, unknown> | undefined;
  nock(API).post("/v3/mail/send", (sent: Record<string, unknown>) => ((body = sent), true)).reply(429, { errors: [{ message: "too many" }] });
  const result = await new SendGridMailer({ apiKey: "SG.k", fromEmail: "a@example.com", env: { NODE_ENV: "production" } }).sendMail({ to: "b@example.com", text: "x" });
  t.like(result, { accepted: false, errorCode: "rate-limited", errorClass: "transient" });
  t.like(body, { mail_settings: { sandbox_mode: { enable: false } } });
});

test.serial("an unverified sender is a config failure; a network failure is transient", async (t) => {
  nock(API).post("/v3/mail/send").reply(403, { errors: [{ field: "from", message: "The from address does not match a verified Sender Identity." }] });
  t.like(await mailer().sendMail({ to: "b@example.com", text: "x" }), { errorClass: "config", errorCode: "misconfigured" });
  nock(API).post("/v3/mail/send").replyWithError("socket hang up");
  t.like(await mailer().sendMail({ to: "b@example.com", text: "x" }), { errorClass: "transient", errorCode: "network" });
});

test.serial("a SendGrid that does not answer is a transient network failure after timeoutMs, not a send that hangs", async (t) => {
  nock(API).post("/v3/mail/send").delay(5_000).reply(202, "", { "x-message-id": "late" });
  const started = Date.now();
  const result = await new SendGridMailer({ apiKey: "SG.k", fromEmail: "team@example.com", timeoutMs: 200, env: { NODE_ENV: "test" } }).sendMail({ to: "b@example.com", text: "x" });
  t.like(result, { accepted: false, errorCode: "network", errorClass: "transient" });
  t.true(Date.now() - started < 2_000, `answered after ${Date.now() - started} ms`);
  nock.cleanAll();
});

test("the adapter refuses to exist without an API key (SPEC §7)", (t) => {
  t.true(hasErrorCode(t.throws(() => new SendGridMailer({ env: {} })), MailAdapterErrors.API_KEY_REQUIRED.code));
  t.notThrows(() => new SendGridMailer({ env: { MAIL_ADAPTER_API_KEY: "SG.from-env" } }));
});

test.serial("the signed event webhook: events recorded, bad signature 401, replay 409, unknown ids ignored", async (t) => {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const verificationKey = publicKey.export({ format: "der", type: "spki" }).toString("base64");
  const adapter = new SendGridMailer({ apiKey: "SG.k", fromEmail: "team@example.com", webhookVerificationKey: verificationKey, env: { NODE_ENV: "test" } });
  const { comms, http, logs } = await commsTestApp(t, { mail: adapter });
  nock(API).post("/v3/mail/send").reply(202, "", { "x-message-id": "wh-msg-1" });
  const sent = await comms.getCommsService().sendMail({ to: "ada@example.com", subject: "Hi", text: "x" });
  await comms.getCommsService().flushLog();

  const events = [
    { event: "open", sg_message_id: "wh-msg-1.filter0001", sg_event_id: "ev-open", timestamp: 1_700_000_000, email: "ada@example.com" },
    { event: "delivered", sg_message_id: "wh-msg-1.filter0001", sg_event_id: "ev-delivered", timestamp: 1_700_000_001, email: "ada@example.com" },
    { event: "delivered", sg_message_id: "unknown.filter", sg_event_id: "ev-x", timestamp: 1_700_000_002, email: "x@example.com" },
    { event: "unsubscribe", sg_message_id: "wh-msg-1.filter0001", sg_event_id: "ev-unsub", timestamp: 1_700_000_003, email: "ada@example.com" },
  ];
  const body = JSON.stringify(events);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign("sha256", Buffer.from(timestamp + body), privateKey).toString("base64");
  const post = (sig: string, ts = timestamp, payload = body) =>
    request(http)
      .post("/comms/webhooks/sendgrid")
      .set("content-type", "application/json")
      .set("x-twilio-email-event-webhook-signature", sig)
      .set("x-twilio-email-event-webhook-timestamp", ts)
      .send(payload);

  const forged = await post(sign("sha256", Buffer.from(timestamp + body), generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey).toString("base64")).expect(401);
  t.is(forged.body.errors[0].code, CommsErrors.WEBHOOK_SIGNATURE_INVALID.code);
  // Correctly signed, sent as another type: the body was never read, and the answer says so.
  const untyped = await post(signature).set("content-type", "text/plain").expect(415);
  t.is(untyped.body.errors[0].code, "HTTP_UNSUPPORTED_MEDIA_TYPE");
  await post(signature, timestamp, body.replace("delivered", "bounce")).expect(401);
  const stale = String(Number(timestamp) - 3600);
  await post(sign("sha256", Buffer.from(stale + body), privateKey).toString("base64"), stale).expect(401);
  t.is((await commsMessageModel().findById(sent.messageId).lean())!.events.length, 0, "refused webhooks record nothing");

  const accepted = await post(signature).expect(200);
  t.deepEqual(accepted.body.data, { recorded: 2, ignored: 1, optOuts: 1 });
  const row = await commsMessageModel().findById(sent.messageId).lean();
  t.is(row!.status, "delivered");
  t.deepEqual(row!.events.map((event) => event.type), ["opened", "delivered"]);

  const replay = await post(signature).expect(409);
  t.is(replay.body.errors[0].code, CommsErrors.WEBHOOK_REPLAYED.code);
  // The same signature spelled otherwise (no padding, URL-safe alphabet) is still the same delivery.
  for (const respelled of [signature.replace(/=+$/, ""), signature.replace(/\+/g, "-").replace(/\//g, "_")]) {
    t.is((await post(respelled).expect(409)).body.errors[0].code, CommsErrors.WEBHOOK_REPLAYED.code, respelled);
  }
  t.is((await commsMessageModel().findById(sent.messageId).lean())!.events.length, 2, "replays record nothing");
  // The request lines are written, without the recipients the events name.
  t.regex(logs.text(), /POST \/comms\/webhooks\/sendgrid 200/);
  t.false(logs.text().includes("x@example.com"), "no recipient address in the logs");
});

test.serial("a redelivered webhook (signed again, with a new timestamp) reports each opt-out to onOptOut once", async (t) => {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const verificationKey = publicKey.export({ format: "der", type: "spki" }).toString("base64");
  const adapter = new SendGridMailer({ apiKey: "SG.k", fromEmail: "team@example.com", webhookVerificationKey: verificationKey, env: { NODE_ENV: "test" } });
  const optOuts: string[] = [];
  const { http } = await commsTestApp(t, { mail: adapter, onOptOut: (event) => void optOuts.push(`${event.recipient}:${event.reason}`) });
  const unique = `${process.pid}-${Date.now()}`;
  const body = JSON.stringify([
    { event: "unsubscribe", sg_message_id: "m.filter", sg_event_id: `unsub-${unique}`, timestamp: 1_700_000_003, email: "ada@example.com" },
    { event: "spamreport", sg_message_id: "m.filter", sg_event_id: `spam-${unique}`, timestamp: 1_700_000_004, email: "bob@example.com" },
  ]);
  const deliver = (timestamp: string) =>
    request(http)
      .post("/comms/webhooks/sendgrid")
      .set("content-type", "application/json")
      .set("x-twilio-email-event-webhook-signature", sign("sha256", Buffer.from(timestamp + body), privateKey).toString("base64"))
      .set("x-twilio-email-event-webhook-timestamp", timestamp)
      .send(body);
  const now = Math.floor(Date.now() / 1000);
  t.is((await deliver(String(now)).expect(200)).body.data.optOuts, 2);
  // SendGrid's retry of the same events: a new signature, so not a replay, but the same event ids.
  t.is((await deliver(String(now + 1)).expect(200)).body.data.optOuts, 0);
  t.deepEqual(optOuts, ["ada@example.com:unsubscribe", "bob@example.com:spamreport"]);
});
