import test from "ava";
import { Types } from "mongoose";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { ERROR_TRACKER } from "../../contracts/error-tracker.js";
import { startTestDatabase, stopTestDatabase, withFailPoint } from "../../hosts/testing.js";
import { ConfigErrors } from "../../kernel/environment.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { ScriptErrors } from "../scripts/index.js";
import {
  acceptedResult,
  commsMessageModel,
  commsPlugin,
  CommsErrors,
  ConsoleMailer,
  ConsoleVerificationSender,
  HOOK_THREW,
  MAILERS,
  pushTokenModel,
  REDACTED,
  SEND_ERROR_CODES,
  type CommsHookContext,
  type Mailer,
  type SendResult,
} from "./index.js";
import { commsTestApp } from "../../test/support/comms-test-app.js";
import { ScriptedMailer, ScriptedPushSender } from "./test-support/scripted-providers.js";

test.after.always(() => stopTestDatabase());

const mail = { to: "ada@example.com", subject: "Hello {{name}}", text: "secret text", html: "<p>hi</p>" };

async function rowOf(service: { flushLog(): Promise<void> }, messageId: string) {
  await service.flushLog();
  return commsMessageModel().findById(messageId).lean();
}

test("an accepted mail is logged with recipients redacted and the mail fields kept", async (t) => {
  const mailer = new ScriptedMailer("primary", ["accept"]);
  const { comms } = await commsTestApp(t, { mail: mailer, defaultFrom: "team@example.com" });
  const service = comms.getCommsService();
  const result = await service.sendMail(mail);
  t.true(result.accepted);
  t.is(result.status, "sent");
  t.is(mailer.calls[0]!.from, "team@example.com");
  const row = await rowOf(service, result.messageId);
  t.is(row!.status, "sent");
  t.is(row!.channel, "mail");
  t.deepEqual(row!.recipients, [REDACTED]);
  t.is(row!.payload!.to, REDACTED);
  t.is(row!.payload!.subject, mail.subject);
  t.is(row!.providerMessageId, "primary-1");
  t.is(row!.metadata!.consoleUrl, "https://console.example/primary-1");
  t.is(row!.attempts.length, 1);
  t.like(row!.attempts[0], { provider: "primary", attempt: 1, isRetry: false, outcome: "accepted" });
});

test("defaultFrom applies to the message beforeSend returns, and the hook saw it on the original", async (t) => {
  const mailer = new ScriptedMailer("primary", ["accept"]);
  let seen: unknown;
  const { comms } = await commsTestApp(t, {
    mail: mailer,
    defaultFrom: "team@example.com",
    beforeSend: (context) => {
      seen = (context.message as { from?: string }).from;
      return { message: { to: "ada@example.com", subject: "Replaced", text: "replaced" } };
    },
  });
  const result = await comms.getCommsService().sendMail(mail);
  t.true(result.accepted);
  t.is(seen, "team@example.com");
  t.like(mailer.calls[0], { subject: "Replaced", from: "team@example.com" });
  t.is((await rowOf(comms.getCommsService(), result.messageId))!.payload!.from, "team@example.com", "the row keeps what was sent");
  // A sender the replacement names is kept.
  const named = new ScriptedMailer("named", ["accept"]);
  const other = await commsTestApp(t, { mail: named, defaultFrom: "team@example.com", beforeSend: () => ({ message: { to: "ada@example.com", subject: "s", text: "t", from: "billing@example.com" } }) });
  await other.comms.getCommsService().sendMail(mail);
  t.is(named.calls[0]!.from, "billing@example.com");
});

test("stop waits for a send still waiting on its provider, so its row is written before the database closes", async (t) => {
  let answer: (() => void) | undefined;
  const slow: Mailer = {
    name: "slow",
    sendMail: () => new Promise<SendResult>((resolve) => (answer = () => resolve(acceptedResult({ providerMessageId: "slow-1" })))),
  };
  const { app, comms, logs } = await commsTestApp(t, { mail: slow });
  const sending = comms.getCommsService().sendMail(mail);
  while (!answer) await new Promise((resolve) => setImmediate(resolve));
  const stopping = app.stop();
  setTimeout(() => answer!(), 100);
  await stopping;
  const result = await sending;
  t.true(result.accepted);
  t.false(logs.text().includes("not written"), "no row was lost");
  await commsTestApp(t, {}); // the database, open again
  t.like(await commsMessageModel().findById(result.messageId).lean(), { status: "sent", providerMessageId: "slow-1" });
});

test("app.override(MAILERS) before build replaces the plugin's mailers", async (t) => {
  const own = new ScriptedMailer("own", ["accept"]);
  const fake = new ScriptedMailer("fake", ["accept"]);
  const { comms } = await commsTestApp(t, { mail: own }, {}, (app) => app.override(MAILERS, { useValue: [fake] }));
  const result = await comms.getCommsService().sendMail(mail);
  t.true(result.accepted);
  t.is(fake.calls.length, 1);
  t.is(own.calls.length, 0);
});

test("redactRecipients: false keeps the recipients", async (t) => {
  const { comms } = await commsTestApp(t, { mail: new ScriptedMailer("m", ["accept"]), redactRecipients: false });
  const result = await comms.getCommsService().sendMail({ ...mail, to: ["a@example.com", "b@example.com"] });
  const row = await rowOf(comms.getCommsService(), result.messageId);
  t.deepEqual(row!.recipients, ["a@example.com", "b@example.com"]);
  t.deepEqual(row!.payload!.to, ["a@example.com", "b@example.com"]);
});

test("a transient failure is retried once inline, after onRetry with attempt 2", async (t) => {
  const mailer = new ScriptedMailer("m", ["transient", "accept"]);
  const retries: Array<[CommsHookContext, SendResult]> = [];
  const { comms } = await commsTestApp(t, { mail: mailer, onRetry: (context, result) => void retries.push([context, result]) });
  const result = await comms.getCommsService().sendMail(mail);
  t.true(result.accepted);
  t.is(mailer.calls.length, 2);
  t.is(retries.length, 1);
  t.is(retries[0]![0].attempt, 2);
  t.true(retries[0]![0].isRetry);
  t.is(retries[0]![0].messageId, result.messageId);
  t.is(retries[0]![1].errorClass, "transient");
  const row = await rowOf(comms.getCommsService(), result.messageId);
  t.deepEqual(
    row!.attempts.map((attempt) => [attempt.attempt, attempt.isRetry, attempt.outcome, attempt.errorClass]),
    [
      [1, false, "failed", "transient"],
      [2, true, "accepted", undefined],
    ],
  );
});

test("a transient failure after its retry falls back to the next provider, recorded in attempts", async (t) => {
  const first = new ScriptedMailer("first", ["transient"]);
  const second = new ScriptedMailer("second", ["accept"]);
  const { comms } = await commsTestApp(t, { mail: [first, second] });
  const result = await comms.getCommsService().sendMail(mail);
  t.true(result.accepted);
  t.is(first.calls.length, 2);
  t.is(second.calls.length, 1);
  const row = await rowOf(comms.getCommsService(), result.messageId);
  t.is(row!.provider, "second");
  t.deepEqual(row!.attempts.map((attempt) => attempt.provider), ["first", "first", "second"]);
});

test("a config failure is not retried and falls back; a permanent failure ends the send", async (t) => {
  const config = new ScriptedMailer("config", ["config"]);
  const permanent = new ScriptedMailer("permanent", ["permanent"]);
  const never = new ScriptedMailer("never", ["accept"]);
  const errors: SendResult[] = [];
  const { comms } = await commsTestApp(t, { mail: [config, permanent, never], onError: (_context, result) => void errors.push(result) });
  const result = await comms.getCommsService().sendMail(mail);
  t.false(result.accepted);
  t.is(result.errorClass, "permanent");
  t.true(result.isPermanentFailure);
  t.is(config.calls.length, 1);
  t.is(permanent.calls.length, 1);
  t.is(never.calls.length, 0);
  t.is(errors.length, 1);
  const row = await rowOf(comms.getCommsService(), result.messageId);
  t.like(row, { status: "failed", errorClass: "permanent", errorCode: "scripted-permanent" });
});

test("a throwing provider is a transient provider-throw, retried once, and the call resolves", async (t) => {
  const mailer = new ScriptedMailer("boom", ["throw"]);
  const { comms } = await commsTestApp(t, { mail: mailer });
  const result = await comms.getCommsService().sendMail(mail);
  t.like(result, { accepted: false, errorClass: "transient", errorCode: SEND_ERROR_CODES.providerThrow, isPermanentFailure: false });
  t.is(mailer.calls.length, 2);
});

test("beforeSend may cancel: status cancelled, no provider call", async (t) => {
  const mailer = new ScriptedMailer("m", ["accept"]);
  const sent: SendResult[] = [];
  const { comms } = await commsTestApp(t, { mail: mailer, beforeSend: () => ({ cancel: true }), onSend: (_c, result) => void sent.push(result) });
  const result = await comms.getCommsService().sendMail(mail);
  t.like(result, { accepted: false, status: "cancelled", errorCode: SEND_ERROR_CODES.cancelled });
  t.is(mailer.calls.length, 0);
  t.is(sent.length, 1);
  t.like(await rowOf(comms.getCommsService(), result.messageId), { status: "cancelled", attempts: [] });
});

test("beforeSend may replace the message", async (t) => {
  const mailer = new ScriptedMailer("m", ["accept"]);
  const { comms } = await commsTestApp(t, { mail: mailer, beforeSend: (context) => ({ message: { ...(context.message as typeof mail), subject: "Replaced" } }) });
  await comms.getCommsService().sendMail(mail);
  t.is(mailer.calls[0]!.subject, "Replaced");
});

test("throwing hooks are logged, marked in hookErrors and change nothing; a throwing beforeSend is a no-op", async (t) => {
  const mailer = new ScriptedMailer("m", ["transient", "accept"]);
  const boom = () => {
    throw new Error("hook exploded with ada@example.com");
  };
  const { comms, logs } = await commsTestApp(t, { mail: mailer, beforeSend: boom, onRetry: boom, onSend: async () => boom(), onError: boom });
  const result = await comms.getCommsService().sendMail(mail);
  t.true(result.accepted);
  t.is(mailer.calls[0]!.subject, mail.subject);
  const row = await rowOf(comms.getCommsService(), result.messageId);
  t.deepEqual(row!.metadata!.hookErrors, { beforeSend: HOOK_THREW, onRetry: HOOK_THREW, onSend: HOOK_THREW });
  t.false(JSON.stringify(row).includes("exploded"));
  t.true(logs.lines.some((line) => String(line.message).includes("Comms hook onSend threw")));
});

test("logMessages: false writes no row", async (t) => {
  const { comms } = await commsTestApp(t, { mail: new ScriptedMailer("m", ["accept"]), logMessages: false });
  const result = await comms.getCommsService().sendMail(mail);
  t.true(result.accepted);
  t.is(await rowOf(comms.getCommsService(), result.messageId), null);
});

test("retainPayloadDays: 0 stores no payload", async (t) => {
  const { comms } = await commsTestApp(t, { mail: new ScriptedMailer("m", ["accept"]), retainPayloadDays: 0 });
  const result = await comms.getCommsService().sendMail(mail);
  const row = await rowOf(comms.getCommsService(), result.messageId);
  t.truthy(row);
  t.is(row!.payload, undefined);
});

test("retention unsets payloads older than retainPayloadDays and keeps the rows (injectable clock)", async (t) => {
  let clock = new Date("2026-01-01T00:00:00Z");
  const { comms } = await commsTestApp(t, { mail: new ScriptedMailer("m", ["accept"]), retainPayloadDays: 7, now: () => clock });
  const service = comms.getCommsService();
  const old = await service.sendMail(mail);
  clock = new Date("2026-01-06T00:00:00Z");
  const recent = await service.sendMail(mail);
  clock = new Date("2026-01-09T00:00:00Z");
  t.true((await service.purgeExpiredPayloads()) >= 1);
  const [oldRow, recentRow] = await Promise.all([rowOf(service, old.messageId), rowOf(service, recent.messageId)]);
  t.is(oldRow!.payload, undefined);
  t.is(oldRow!.status, "sent");
  t.is(recentRow!.payload!.subject, mail.subject);
});

test.serial("a failing retention run or delivery-row write is logged, reported to the app's ERROR_TRACKER, and never rejects", async (t) => {
  const tracker = new InMemoryErrorTracker();
  const { comms, logs } = await commsTestApp(t, { mail: new ScriptedMailer("m", ["accept"]), retainPayloadDays: 0 }, {}, (app) => app.override(ERROR_TRACKER, { useValue: tracker }));
  const service = comms.getCommsService();
  await service.sendMail(mail);
  await service.flushLog();
  const database = await startTestDatabase();
  const purged = await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["update"], errorCode: 11600 } }, () => service.purgeExpiredPayloads());
  t.is(purged, 0);
  t.true(logs.lines.some((line) => line.level === "error" && String(line.message).includes("Comms payload retention failed")));
  t.is(tracker.exceptions.length, 1);
  t.deepEqual(tracker.exceptions[0]!.context.tags, { comms: "payload retention" });

  // A delivery row that cannot be written: the send is still a result, the failure reported.
  const sent = await withFailPoint(database.uri, { mode: "alwaysOn", data: { failCommands: ["insert"], errorCode: 11600 } }, async () => {
    const result = await service.sendMail(mail);
    await service.flushLog();
    return result;
  });
  t.true(sent.accepted);
  t.is(tracker.exceptions.length, 2);
  t.deepEqual(tracker.exceptions[1]!.context.tags, { comms: "delivery log" });
});

test("redactPayload replaces what is stored; a throwing one stores nothing", async (t) => {
  const { comms } = await commsTestApp(t, { mail: new ScriptedMailer("m", ["accept"]), redactPayload: (_context, payload) => ({ ...payload, text: "[cut]" }) });
  const result = await comms.getCommsService().sendMail(mail);
  t.is((await rowOf(comms.getCommsService(), result.messageId))!.payload!.text, "[cut]");

  const throwing = await commsTestApp(t, {
    mail: new ScriptedMailer("m", ["accept"]),
    redactPayload: () => {
      throw new Error("no");
    },
  });
  const second = await throwing.comms.getCommsService().sendMail(mail);
  const row = await rowOf(throwing.comms.getCommsService(), second.messageId);
  t.is(row!.payload, undefined);
  t.deepEqual(row!.metadata!.hookErrors, { redactPayload: HOOK_THREW });
});

test("SMS keeps to and body; a verification start keeps {channel}; a check keeps nothing and is never retried", async (t) => {
  const { comms } = await commsTestApp(t, { verification: new ConsoleVerificationSender({ code: "424242" }) });
  const service = comms.getCommsService();
  const sms = await service.sendSms({ to: "+14155550100", body: "Your code" });
  t.deepEqual((await rowOf(service, sms.messageId))!.payload, { to: REDACTED, body: "Your code" });
  const started = await service.startVerification({ to: "+14155550100", channel: "sms" });
  t.deepEqual((await rowOf(service, started.messageId))!.payload, { channel: "sms" });
  const wrong = await service.checkVerification({ to: "+14155550100", code: "111111" });
  t.false(wrong.approved);
  const right = await service.checkVerification({ to: "+14155550100", code: "424242" });
  t.true(right.approved);
  const row = await rowOf(service, right.messageId);
  t.is(row!.payload, undefined);
  t.is(row!.metadata!.approved, true);
  t.is(row!.attempts.length, 1);
});

test("checkVerification is never retried, even on a transient failure", async (t) => {
  let checks = 0;
  const flaky = {
    name: "flaky",
    startVerification: async () => ({ accepted: true, isPermanentFailure: false }),
    checkVerification: async () => {
      checks++;
      return { accepted: false, errorCode: "x", errorClass: "transient" as const, isPermanentFailure: false, approved: false };
    },
  };
  const { comms } = await commsTestApp(t, { verification: flaky });
  const result = await comms.getCommsService().checkVerification({ to: "+1", code: "1" });
  t.false(result.approved);
  t.is(checks, 1);
});

test("a verification started on a fallback provider is approved by it: an earlier provider's 'no such verification' hands over", async (t) => {
  let primaryChecks = 0;
  // Down when the code was sent; up again at the check, it knows no such verification (Twilio Verify's 404).
  const primary = {
    name: "primary",
    startVerification: async () => ({ accepted: false, errorCode: "provider-unavailable", errorClass: "transient" as const, isPermanentFailure: false }),
    checkVerification: async () => {
      primaryChecks++;
      return { accepted: true, isPermanentFailure: false, approved: false };
    },
  };
  const { comms } = await commsTestApp(t, { verification: [primary, new ConsoleVerificationSender({ code: "424242" })] });
  const service = comms.getCommsService();
  t.true((await service.startVerification({ to: "+14155550100", channel: "sms" })).accepted);
  const wrong = await service.checkVerification({ to: "+14155550100", code: "000000" });
  t.like(wrong, { accepted: true, approved: false, status: "sent" }, "no provider approves: an answered no, not a failure");
  const right = await service.checkVerification({ to: "+14155550100", code: "424242" });
  t.like(right, { accepted: true, approved: true });
  t.is(primaryChecks, 2, "each provider sees a code once");
  const row = await rowOf(service, right.messageId);
  t.like(row, { provider: "console", metadata: { approved: true } });
  t.deepEqual(row!.attempts.map((attempt) => [attempt.provider, attempt.isRetry]), [["primary", false], ["console", false]]);
  t.false((await service.checkVerification({ to: "+14155550100", code: "424242" })).approved, "a used code is not approved again");
});

test("push: only failed tokens are retried, permanent failures deactivate their token, the row is partial", async (t) => {
  const suffix = new Types.ObjectId().toHexString();
  const [ok, dead, flaky] = ["ok", "dead", "flaky"].map((name) => `${name}-${suffix}`);
  const sender = new ScriptedPushSender("expo", (token, call) => (token === ok ? "accept" : token === dead ? "permanent" : call === 1 ? "transient" : "accept"));
  const retried: number[] = [];
  const { comms } = await commsTestApp(t, { push: sender, onRetry: (context) => void retried.push(context.attempt) });
  const ownerId = new Types.ObjectId();
  const Tokens = pushTokenModel();
  await Tokens.create([ok, dead, flaky].map((token) => ({ token, kind: "expo" as const, ownerId, active: true })));
  const result = await comms.getCommsService().sendPushToUser(ownerId.toHexString(), { title: "Hi", body: "There" });
  t.true(result.accepted);
  t.is(result.status, "partial");
  t.deepEqual(sender.calls.map((tokens) => [...tokens].sort()), [[dead, flaky, ok], [flaky]]);
  t.deepEqual(retried, [2]);
  t.is(result.tokens.find((token) => token.token === flaky)!.accepted, true);
  t.false((await Tokens.findOne({ token: dead }).lean())!.active);
  t.true((await Tokens.findOne({ token: ok }).lean())!.active);
  const row = await rowOf(comms.getCommsService(), result.messageId);
  t.like(row, { status: "partial", userId: REDACTED, metadata: { tokens: { accepted: 2, failed: 1 } } });
  t.deepEqual(row!.payload, { title: "Hi", body: "There" });
});

test("push reaches at most maxPushTokensPerUser tokens, the most recently registered", async (t) => {
  const sender = new ScriptedPushSender("expo", () => "accept");
  const { comms } = await commsTestApp(t, { push: sender, maxPushTokensPerUser: 3 });
  const ownerId = new Types.ObjectId();
  // Rows stored before the limit existed: five active tokens.
  const rows = Array.from({ length: 5 }, (_, i) => ({ token: `ExponentPushToken[cap-${ownerId.toHexString()}-${i}]`, kind: "expo" as const, ownerId, active: true, lastRegisteredAt: new Date(Date.UTC(2026, 0, i + 1)) }));
  await pushTokenModel().create(rows);
  const result = await comms.getCommsService().sendPushToUser(ownerId.toHexString(), { title: "Hi" });
  t.deepEqual(result.tokens.map((token) => token.token).sort(), rows.slice(2).map((row) => row.token).sort());
});

test("push to a user without active tokens is a permanent no-recipients failure", async (t) => {
  const { comms } = await commsTestApp(t, {});
  const result = await comms.getCommsService().sendPushToUser(new Types.ObjectId().toHexString(), { title: "Hi" });
  t.like(result, { accepted: false, errorCode: SEND_ERROR_CODES.noRecipients, status: "failed" });
});

test("delivery events: delivered moves the status, opened does not, repeats and unknown ids change nothing", async (t) => {
  const events: string[] = [];
  const { comms } = await commsTestApp(t, { mail: new ScriptedMailer("prov", ["accept"]), onDeliveryEvent: (event) => void events.push(event.type) });
  const service = comms.getCommsService();
  const result = await service.sendMail(mail);
  await service.flushLog();
  const providerMessageId = "prov-1";
  t.deepEqual(await service.recordDeliveryEvent({ provider: "prov", providerMessageId, type: "opened", eventId: "e1" }), { recorded: true });
  t.is((await rowOf(service, result.messageId))!.status, "sent");
  t.deepEqual(await service.recordDeliveryEvent({ provider: "prov", providerMessageId, type: "delivered", eventId: "e2" }), { recorded: true });
  t.deepEqual(await service.recordDeliveryEvent({ provider: "prov", providerMessageId, type: "delivered", eventId: "e2" }), { recorded: false });
  t.deepEqual(await service.recordDeliveryEvent({ provider: "prov", providerMessageId: "nope", type: "delivered" }), { recorded: false });
  t.deepEqual(await service.recordDeliveryEvent({ provider: "prov", providerMessageId, type: "bounced", eventId: "e3", errorCode: "550" }), { recorded: true });
  const row = await rowOf(service, result.messageId);
  t.like(row, { status: "bounced", errorClass: "permanent", errorCode: "550" });
  t.deepEqual(row!.events.map((event) => event.type), ["opened", "delivered", "bounced"]);
  t.deepEqual(events, ["opened", "delivered", "bounced"]);
});

test("in production a channel without a provider answers channel-not-configured", async (t) => {
  const { comms } = await commsTestApp(t, { mail: new ConsoleMailer() }, { NODE_ENV: "production", TOKEN_SECRET: "x".repeat(48) });
  const result = await comms.getCommsService().sendSms({ to: "+1", body: "x" });
  t.like(result, { accepted: false, errorCode: SEND_ERROR_CODES.channelNotConfigured, errorClass: "config" });
});

test("outside production a channel without a provider falls back to the console adapter with a warning", async (t) => {
  const { comms, logs } = await commsTestApp(t, {});
  t.true((await comms.getCommsService().sendSms({ to: "+1", body: "x" })).accepted);
  t.true(logs.lines.some((line) => line.level === "warn" && String(line.message).includes("Comms channel sms has no provider")));
});

test("the service is NOT_STARTED before start; bad options fail at construction", (t) => {
  t.true(hasErrorCode(t.throws(() => commsPlugin().getCommsService()), CommsErrors.NOT_STARTED.code));
  t.true(hasErrorCode(t.throws(() => commsPlugin({ basePath: "comms" })), CommsErrors.INVALID_BASE_PATH.code));
  t.true(hasErrorCode(t.throws(() => commsPlugin({ retainPayloadDays: -1 })), CommsErrors.INVALID_RETENTION.code));
});

test("a bad retention schedule fails at construction; a bad COMMS_RETENTION_CRON fails the start naming it", async (t) => {
  for (const schedule of ["every night", "0 3 31 2 *"]) {
    const error = t.throws(() => commsPlugin({ retentionSchedule: schedule }), undefined, schedule);
    t.true(hasErrorCode(error, ScriptErrors.INVALID_CRON_EXPRESSION.code), schedule);
  }
  for (const schedule of ["*/5 * * *", "0 3 31 2 *"]) {
    const error = await t.throwsAsync(commsTestApp(t, {}, { COMMS_RETENTION_CRON: schedule }), undefined, schedule);
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT.code), schedule);
    t.regex(error!.message, /COMMS_RETENTION_CRON: must be a five-field cron expression/, schedule);
  }
  // The option wins: the variable is not read then.
  await t.notThrowsAsync(commsTestApp(t, { retentionSchedule: "0 4 * * *" }, { COMMS_RETENTION_CRON: "never" }));
});
