import test from "ava";
import nock from "nock";
import { loopbackOnlyNetwork } from "../../test/support/auth-test-app.js";
import request from "supertest";
import twilio from "twilio";
import { startTestDatabase, stopTestDatabase, withFailPoint } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { commsMessageModel, CommsErrors } from "../../plugins/comms/index.js";
import { commsTestApp } from "../../test/support/comms-test-app.js";
import { SmsAdapterErrors } from "./errors.js";
import { TwilioSmsSender } from "./twilio.js";
import { smsConformance } from "../conformance/sms.js";

const SID = `AC${"0".repeat(32)}`;
const TOKEN = "twilio-auth-token";
const API = "https://api.twilio.com";
const PATH = `/2010-04-01/Accounts/${SID}/Messages.json`;

loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

const sender = (extra: Partial<ConstructorParameters<typeof TwilioSmsSender>[0]> = {}) => new TwilioSmsSender({ accountSid: SID, authToken: TOKEN, from: "+14155550199", env: {}, ...extra });
const twilioError = (status: number, code: number) => ({ code, message: `error ${code}`, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

smsConformance(test, "twilio", () => ({
  adapter: sender(),
  arrange: {
    accepted: () => void nock(API).post(PATH).reply(201, { sid: "SM123", status: "queued" }),
    permanent: () => void nock(API).post(PATH).reply(400, twilioError(400, 21211)),
    transient: () => void nock(API).post(PATH).reply(503, "Service Unavailable"),
    config: () => void nock(API).post(PATH).reply(401, twilioError(401, 20003)),
    malformed: () => void nock(API).post(PATH).reply(201, "<html>not json</html>", { "content-type": "text/html" }),
  },
  cleanup: () => void nock.cleanAll(),
}));

test.serial("the request carries the number, body, sender and status callback", async (t) => {
  let body = "";
  nock(API)
    .post(PATH, (sent: string | Record<string, string>) => ((body = typeof sent === "string" ? sent : new URLSearchParams(sent).toString()), true))
    .reply(201, { sid: "SM9", status: "queued" });
  const result = await sender({ statusCallbackUrl: "https://api.example.com/comms/webhooks/twilio" }).sendSms({ to: "+14155550100", body: "Hello there" });
  t.like(result, { accepted: true, providerMessageId: "SM9" });
  t.true(result.consoleUrl!.includes("SM9"));
  const fields = new URLSearchParams(body);
  t.is(fields.get("To"), "+14155550100");
  t.is(fields.get("From"), "+14155550199");
  t.is(fields.get("Body"), "Hello there");
  t.is(fields.get("StatusCallback"), "https://api.example.com/comms/webhooks/twilio");
});

test.serial("an opted-out recipient is permanent; a rate limit is transient", async (t) => {
  nock(API).post(PATH).reply(400, twilioError(400, 21610));
  t.like(await sender().sendSms({ to: "+14155550100", body: "x" }), { errorClass: "permanent", errorCode: "recipient-opted-out" });
  nock(API).post(PATH).reply(429, twilioError(429, 20429));
  t.like(await sender().sendSms({ to: "+14155550100", body: "x" }), { errorClass: "transient", errorCode: "rate-limited" });
});

test("the adapter needs credentials and a sender", (t) => {
  t.true(hasErrorCode(t.throws(() => new TwilioSmsSender({ env: {} })), SmsAdapterErrors.CREDENTIALS_REQUIRED.code));
  t.true(hasErrorCode(t.throws(() => new TwilioSmsSender({ accountSid: SID, authToken: TOKEN, env: {} })), SmsAdapterErrors.SENDER_REQUIRED.code));
  t.notThrows(() => new TwilioSmsSender({ from: "+1", env: { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN } }));
});

test.serial("a status the database failed to write is answered 503 and not kept as received: Twilio's retry is recorded", async (t) => {
  const { comms, http } = await commsTestApp(t, { sms: sender({ statusCallbackUrl: "https://api.example.com/comms/webhooks/twilio" }) });
  nock(API).post(PATH).reply(201, { sid: "SMwebhookRetry", status: "queued" });
  const sent = await comms.getCommsService().sendSms({ to: "+14155550100", body: "x" });
  await comms.getCommsService().flushLog();
  const url = "https://api.example.com/comms/webhooks/twilio";
  const delivered = { MessageSid: "SMwebhookRetry", MessageStatus: "delivered", AccountSid: SID };
  const post = () => request(http).post("/comms/webhooks/twilio").type("form").set("x-twilio-signature", twilio.getExpectedTwilioSignature(TOKEN, url, delivered)).send(delivered);

  const database = await startTestDatabase();
  const failing = await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["update"], errorCode: 2, errorLabels: [], namespace: `${database.dbName}.${commsMessageModel().collection.collectionName}` } }, () => post());
  t.is(failing.status, 503, JSON.stringify(failing.body));
  t.is(failing.body.errors[0].code, CommsErrors.WEBHOOK_NOT_RECORDED.code);
  t.is((await commsMessageModel().findById(sent.messageId).lean())!.status, "sent");

  t.deepEqual((await post().expect(200)).body.data, { recorded: 1, ignored: 0, optOuts: 0 });
  t.is((await commsMessageModel().findById(sent.messageId).lean())!.status, "delivered");
  t.is((await post().expect(409)).body.errors[0].code, CommsErrors.WEBHOOK_REPLAYED.code);
});

test.serial("the status webhook: signed statuses recorded, STOP is an opt-out, bad signature 401, replay 409, unknown sid ignored", async (t) => {
  const optOuts: string[] = [];
  const { comms, http } = await commsTestApp(t, { sms: sender({ statusCallbackUrl: "https://api.example.com/comms/webhooks/twilio" }), onOptOut: (event) => void optOuts.push(event.recipient) });
  nock(API).post(PATH).reply(201, { sid: "SMwebhook1", status: "queued" });
  const sent = await comms.getCommsService().sendSms({ to: "+14155550100", body: "x" });
  await comms.getCommsService().flushLog();
  const url = "https://api.example.com/comms/webhooks/twilio";
  const post = (fields: Record<string, string>, signature = twilio.getExpectedTwilioSignature(TOKEN, url, fields)) =>
    request(http).post("/comms/webhooks/twilio").type("form").set("x-twilio-signature", signature).send(fields);

  const delivered = { MessageSid: "SMwebhook1", MessageStatus: "delivered", AccountSid: SID };
  t.is((await post(delivered, "forged").expect(401)).body.errors[0].code, CommsErrors.WEBHOOK_SIGNATURE_INVALID.code);
  await post({ ...delivered, MessageStatus: "failed" }, twilio.getExpectedTwilioSignature(TOKEN, url, delivered)).expect(401);
  t.is((await commsMessageModel().findById(sent.messageId).lean())!.status, "sent");

  t.deepEqual((await post(delivered).expect(200)).body.data, { recorded: 1, ignored: 0, optOuts: 0 });
  t.is((await commsMessageModel().findById(sent.messageId).lean())!.status, "delivered");
  t.is((await post(delivered).expect(409)).body.errors[0].code, CommsErrors.WEBHOOK_REPLAYED.code);
  // Neither another idempotency token (unsigned) nor the fields in another order make it a new delivery.
  const signature = twilio.getExpectedTwilioSignature(TOKEN, url, delivered);
  const reordered = { AccountSid: SID, MessageStatus: "delivered", MessageSid: "SMwebhook1" };
  t.is((await post(delivered, signature).set("i-twilio-idempotency-token", "forged-2").expect(409)).body.errors[0].code, CommsErrors.WEBHOOK_REPLAYED.code);
  t.is((await post(reordered, signature).expect(409)).body.errors[0].code, CommsErrors.WEBHOOK_REPLAYED.code);
  t.deepEqual((await post({ MessageSid: "SMunknown", MessageStatus: "delivered" }).expect(200)).body.data, { recorded: 0, ignored: 1, optOuts: 0 });
  const stop = { From: "+14155550100", Body: "STOP", OptOutType: "STOP", MessageSid: "SMin1" };
  t.deepEqual((await post(stop).expect(200)).body.data, { recorded: 0, ignored: 0, optOuts: 1 });
  await post(stop).set("i-twilio-idempotency-token", "another").expect(409);
  t.deepEqual(optOuts, ["+14155550100"], "an opt-out is heard once");
});
