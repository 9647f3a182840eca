// Comms with the app run as two processes on one database (docs/comms.md): webhook receipts, event
// ids and push tokens live in the database, so a delivery replayed to the other process is still a
// 409, a provider's retry signed anew and spread over both records each event and opt-out once,
// push-token registrations racing through both keep the claim rules and the per-user limit, and
// the delivery log shows the rows of both.
import test from "ava";
import { generateKeyPairSync, sign } from "node:crypto";
import request from "supertest";
import { commsMessageModel, pushTokenModel } from "../../plugins/comms/index.js";
import { TestUser, uniqueEmail } from "../support/auth-test-app.js";
import { twoProcesses } from "../support/second-process.js";
import { MAX_PUSH_TOKENS, scaleOutCommsApp } from "./comms-app.js";

const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
process.env.SVC_SCALE_OUT_WEBHOOK_KEY = publicKey.export({ format: "der", type: "spki" }).toString("base64");

const { first, second } = twoProcesses(test, (t) => scaleOutCommsApp(t), new URL("./comms-second-process.ts", import.meta.url));

async function signup(admin = false): Promise<{ token: string; id: string }> {
  const { url } = await first;
  const email = uniqueEmail(admin ? "admin" : "user");
  const response = await request(url).post("/auth/signup").send({ email, password: "correct horse battery staple" }).expect(201);
  if (admin) await TestUser.updateOne({ email }, { admin: true });
  return { token: response.body.data.token as string, id: response.body.data.userId as string };
}

const sendMail = async (url: string, to: string) => (await request(url).post("/scale-out/mail").send({ to }).expect(200)).body.data as { messageId: string; providerMessageId: string };

function deliver(url: string, body: string, timestamp: string) {
  return request(url)
    .post("/comms/webhooks/sendgrid")
    .set("content-type", "application/json")
    .set("x-twilio-email-event-webhook-signature", sign("sha256", Buffer.from(timestamp + body), privateKey).toString("base64"))
    .set("x-twilio-email-event-webhook-timestamp", timestamp)
    .send(body);
}

test("the delivery log has the rows of both processes; a webhook replayed to the other process is a 409; retries spread over both record each event and opt-out once", async (t) => {
  const { url } = await first;
  const other = await second;
  const admin = await signup(true);
  const [here, there] = [await sendMail(url, "ada@example.com"), await sendMail(other.url, "bob@example.com")];
  const log = await request(url).get("/comms/messages").query({ limit: 100 }).set("Authorization", `Bearer ${admin.token}`).expect(200);
  const ids = (log.body.data as Array<{ id: string }>).map((row) => row.id);
  t.true(ids.includes(here.messageId) && ids.includes(there.messageId), JSON.stringify(ids));

  // The first process's mail, reported to the second one.
  const body = JSON.stringify([
    { event: "delivered", sg_message_id: `${here.providerMessageId}.filter0001`, sg_event_id: `${here.messageId}-delivered`, timestamp: 1_700_000_001, email: "ada@example.com" },
    { event: "unsubscribe", sg_message_id: `${here.providerMessageId}.filter0001`, sg_event_id: `${here.messageId}-unsub`, timestamp: 1_700_000_002, email: "ada@example.com" },
  ]);
  const now = Math.floor(Date.now() / 1000);
  const delivered = await deliver(other.url, body, String(now)).expect(200);
  t.deepEqual(delivered.body.data, { recorded: 1, ignored: 0, optOuts: 1 });
  for (const target of [url, other.url]) t.is((await deliver(target, body, String(now)).expect(409)).body.errors[0].code, "COMMS_WEBHOOK_REPLAYED");

  // The provider's retries, each signed anew, at once through both: nothing more is recorded.
  const retries = await Promise.all(Array.from({ length: 10 }, (_, index) => deliver(index % 2 === 0 ? url : other.url, body, String(now - 1 - index))));
  t.true(retries.every((answer) => answer.status === 200), retries.map((answer) => answer.status).join(","));
  t.is(retries.reduce((sum, answer) => sum + (answer.body.data.recorded as number) + (answer.body.data.optOuts as number), 0), 0);
  const row = await commsMessageModel().findById(here.messageId).lean();
  t.is(row!.status, "delivered");
  t.deepEqual(row!.events.map((event) => event.type), ["delivered"]);
});

const expoToken = (label: string) => `ExponentPushToken[${label}-${process.pid}-${Math.random().toString(36).slice(2, 10)}]`;
const register = (url: string, token: string, caller: { token: string }) =>
  request(url).post("/comms/pushTokens").set("Authorization", `Bearer ${caller.token}`).send({ token, kind: "expo" });

test("push-token registrations racing through both processes: one owner per token, refreshes are 200, and the per-user limit holds", async (t) => {
  const { url } = await first;
  const other = await second;
  const [ada, bob] = [await signup(), await signup()];

  // Two users claim each token at once, one through each process: one 201, one 409. (No more
  // than the limit: a token trimmed off its first owner's list is inactive, free to be claimed.)
  const contested = Array.from({ length: MAX_PUSH_TOKENS }, () => expoToken("contested"));
  const claims = await Promise.all(contested.flatMap((token) => [register(url, token, ada), register(other.url, token, bob)]));
  for (let index = 0; index < contested.length; index++) {
    const pair = [claims[2 * index]!, claims[2 * index + 1]!];
    t.deepEqual(pair.map((answer) => answer.status).sort(), [201, 409], JSON.stringify(pair.map((answer) => answer.body)));
    t.is(pair.find((answer) => answer.status === 409)!.body.errors[0].code, "COMMS_TOKEN_CLAIMED");
  }

  // One user registers each of many tokens through both processes at once (a retried request).
  const own = Array.from({ length: 12 }, () => expoToken("own"));
  const registrations = await Promise.all(own.flatMap((token) => [register(url, token, bob), register(other.url, token, bob)]));
  for (let index = 0; index < own.length; index++) {
    t.deepEqual([registrations[2 * index]!.status, registrations[2 * index + 1]!.status].sort(), [200, 201]);
  }
  const model = pushTokenModel();
  t.is(await model.countDocuments({ token: { $in: own } }), own.length);
  t.true((await model.countDocuments({ ownerId: bob.id, active: true })) <= MAX_PUSH_TOKENS);
});

test.after("the second process logged no error", async (t) => {
  const other = await second;
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(other.output(), "");
});
