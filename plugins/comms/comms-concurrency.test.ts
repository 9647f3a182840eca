import test from "ava";
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import nock from "nock";
import request from "supertest";
import { ConsoleVerificationSender } from "../../adapters/verification/console.js";
import { SendGridMailer } from "../../adapters/mail/sendgrid.js";
import { stopTestDatabase } from "../../hosts/testing.js";
import { loopbackOnlyNetwork } from "../../test/support/auth-test-app.js";
import { commsTestApp } from "../../test/support/comms-test-app.js";
import { commsMessageModel } from "./comms-message-model.js";
import { CommsErrors } from "./errors.js";

// Bursts of identical provider webhooks and verification checks: a provider retries, and a
// load balancer may hand the copies to one process at once.
loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

const BURST = 20;

function sendGridWithWebhook() {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const webhookVerificationKey = publicKey.export({ format: "der", type: "spki" }).toString("base64");
  return { privateKey, mailer: new SendGridMailer({ apiKey: "SG.k", fromEmail: "team@example.com", webhookVerificationKey, env: { NODE_ENV: "test" } }) };
}

/** An app whose SendGrid mailer verifies webhooks and sent one mail (provider id `messageId`); opt-outs are collected. */
async function mailSentThroughSendGrid(t: Parameters<typeof commsTestApp>[0], messageId: string) {
  const { privateKey, mailer } = sendGridWithWebhook();
  const optOuts: string[] = [];
  const { comms, http } = await commsTestApp(t, { mail: mailer, onOptOut: (event) => void optOuts.push(event.recipient) });
  nock("https://api.sendgrid.com").post("/v3/mail/send").reply(202, "", { "x-message-id": messageId });
  const sent = await comms.getCommsService().sendMail({ to: "ada@example.com", subject: "Hi", text: "x" });
  await comms.getCommsService().flushLog();
  return { privateKey, optOuts, http, sent };
}

function deliver(http: Parameters<typeof request>[0], privateKey: KeyObject, body: string, timestamp: string) {
  return request(http)
    .post("/comms/webhooks/sendgrid")
    .set("content-type", "application/json")
    .set("x-twilio-email-event-webhook-signature", sign("sha256", Buffer.from(timestamp + body), privateKey).toString("base64"))
    .set("x-twilio-email-event-webhook-timestamp", timestamp)
    .send(body);
}

test("copies of one signed webhook at once: one is recorded, the rest 409 COMMS_WEBHOOK_REPLAYED", async (t) => {
  const { privateKey, optOuts, http, sent } = await mailSentThroughSendGrid(t, "burst-1");
  const body = JSON.stringify([
    { event: "delivered", sg_message_id: "burst-1.filter0001", sg_event_id: "burst-delivered", timestamp: 1_700_000_001, email: "ada@example.com" },
    { event: "unsubscribe", sg_message_id: "burst-1.filter0001", sg_event_id: "burst-unsub", timestamp: 1_700_000_002, email: "ada@example.com" },
  ]);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const responses = await Promise.all(Array.from({ length: BURST }, () => deliver(http, privateKey, body, timestamp)));
  t.is(responses.filter((r) => r.status === 200).length, 1);
  t.true(responses.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.errors[0].code === CommsErrors.WEBHOOK_REPLAYED.code));
  const row = await commsMessageModel().findById(sent.messageId).lean();
  t.deepEqual(row!.events.map((event) => event.type), ["delivered"]);
  t.deepEqual(optOuts, ["ada@example.com"]);
});

test("a provider's retries signed anew, at once: each event recorded once, each opt-out reaches onOptOut once", async (t) => {
  const { privateKey, optOuts, http, sent } = await mailSentThroughSendGrid(t, "retry-1");
  const body = JSON.stringify([
    { event: "open", sg_message_id: "retry-1.filter0001", sg_event_id: "retry-open", timestamp: 1_700_000_000, email: "ada@example.com" },
    { event: "bounce", sg_message_id: "retry-1.filter0001", sg_event_id: "retry-bounce", timestamp: 1_700_000_001, email: "ada@example.com", reason: "550" },
    { event: "spamreport", sg_message_id: "retry-1.filter0001", sg_event_id: "retry-spam", timestamp: 1_700_000_002, email: "ada@example.com" },
  ]);
  const now = Math.floor(Date.now() / 1000);
  // Each copy has its own timestamp, so its own signature: none is a replay of another.
  const responses = await Promise.all(Array.from({ length: BURST }, (_, index) => deliver(http, privateKey, body, String(now - index))));
  t.true(responses.every((r) => r.status === 200), responses.map((r) => r.status).join(","));
  // A spam report is a delivery event (complained) and an opt-out.
  t.is(responses.reduce((sum, r) => sum + (r.body.data.recorded as number), 0), 3);
  t.is(responses.reduce((sum, r) => sum + (r.body.data.optOuts as number), 0), 1);
  const row = await commsMessageModel().findById(sent.messageId).lean();
  t.is(row!.status, "bounced");
  t.deepEqual(row!.events.map((event) => event.type).sort(), ["bounced", "complained", "opened"]);
  t.deepEqual(optOuts, ["ada@example.com"]);
});

test("checks of one verification code at once: it approves once", async (t) => {
  const { comms } = await commsTestApp(t, { verification: new ConsoleVerificationSender() });
  const service = comms.getCommsService();
  t.true((await service.startVerification({ to: "+14155550100", channel: "sms" })).accepted);
  const outcomes = await Promise.all(Array.from({ length: BURST }, () => service.checkVerification({ to: "+14155550100", code: "000000" })));
  t.is(outcomes.filter((outcome) => outcome.approved).length, 1);
  t.true(outcomes.every((outcome) => outcome.accepted));
});
