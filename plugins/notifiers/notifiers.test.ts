import test from "ava";
import nock from "nock";
import { hasErrorCode } from "../../kernel/errors.js";
import { ConfigErrors } from "../../kernel/environment.js";
import { createSvcLogger, LogCapture } from "../logging/index.js";
import { NotifierErrors } from "./errors.js";
import { sendToGoogleChat } from "./google-chat.js";
import { sendToSlack } from "./slack.js";
import { resolveWebhookUrl } from "./webhook-targets.js";
import { sendToZoom } from "./zoom.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

function capturing() {
  const capture = new LogCapture();
  return { capture, logger: createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] }) };
}

test("Slack: text, blocks and options become the incoming-webhook payload", async (t) => {
  let payload: unknown;
  nock("https://hooks.slack.example").post("/services/T1/B1/abc", (body) => ((payload = body), true)).reply(200, "ok");
  const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*Import failed*" } }];
  const result = await sendToSlack({
    webhookUrl: "https://hooks.slack.example/services/T1/B1/abc",
    message: "Import failed",
    blocks,
    threadTs: "123.456",
    username: "svc-bot",
    iconEmoji: ":rotating_light:",
  });
  t.deepEqual(result, { delivered: true, statusCode: 200 });
  t.deepEqual(payload, { text: "Import failed", blocks, thread_ts: "123.456", username: "svc-bot", icon_emoji: ":rotating_light:" });
});

test("Slack: a channel name is resolved from SLACK_WEBHOOKS", async (t) => {
  const scope = nock("https://hooks.slack.example").post("/services/alerts", { text: "hi" }).reply(200, "ok");
  const env = { SLACK_WEBHOOKS: JSON.stringify({ alerts: "https://hooks.slack.example/services/alerts" }) };
  t.true((await sendToSlack({ channel: "alerts", message: "hi", env })).delivered);
  t.true(scope.isDone());
});

test("Google Chat: sections and a title become one card v2; threadKey threads the reply", async (t) => {
  let payload: unknown;
  let query: Record<string, string> = {};
  nock("https://chat.example")
    .post("/v1/spaces/AAA/messages")
    .query((q) => ((query = q as Record<string, string>), true))
    .reply((_uri, body) => ((payload = body), [200, { name: "spaces/AAA/messages/1" }]));
  const sections = [{ header: "Checks", widgets: [{ textParagraph: { text: "All green" } }] }];
  const result = await sendToGoogleChat({
    webhookUrl: "https://chat.example/v1/spaces/AAA/messages?key=k&token=t",
    message: "Deploy finished",
    title: "api v57.2.0",
    subtitle: "production",
    sections,
    threadKey: "deploys",
  });
  t.true(result.delivered);
  t.deepEqual(payload, {
    text: "Deploy finished",
    cardsV2: [{ cardId: "svc-notification", card: { header: { title: "api v57.2.0", subtitle: "production" }, sections } }],
  });
  t.deepEqual(query, { key: "k", token: "t", threadKey: "deploys", messageReplyOption: "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" });
});

test("Google Chat: a plain message is just text", async (t) => {
  const scope = nock("https://chat.example").post("/v1/spaces/BBB/messages", { text: "hello" }).query(true).reply(200, {});
  await sendToGoogleChat({ webhookUrl: "https://chat.example/v1/spaces/BBB/messages?key=k", message: "hello" });
  t.true(scope.isDone());
});

test("Zoom: full format with head, body and the verification token", async (t) => {
  let payload: unknown;
  const scope = nock("https://zoom.example")
    .matchHeader("authorization", "verify-token")
    .post("/chat/webhooks/incomingwebhook/xyz")
    .query({ format: "full" })
    .reply((_uri, body) => ((payload = body), [200, {}]));
  const env = { ZOOM_WEBHOOKS: JSON.stringify({ support: "https://zoom.example/chat/webhooks/incomingwebhook/xyz" }) };
  const result = await sendToZoom({
    channel: "support",
    env,
    verificationToken: "verify-token",
    title: "New ticket",
    subtitle: "from the web form",
    message: "Customer cannot log in",
    sections: [{ type: "fields", items: [{ key: "Priority", value: "High" }] }],
  });
  t.true(result.delivered);
  t.true(scope.isDone());
  t.deepEqual(payload, {
    content: {
      head: { text: "New ticket", sub_head: { text: "from the web form" } },
      body: [
        { type: "message", text: "Customer cannot log in" },
        { type: "fields", items: [{ key: "Priority", value: "High" }] },
      ],
    },
  });
});

test("a rejected webhook is logged (without its URL) and returned, not thrown", async (t) => {
  const { capture, logger } = capturing();
  nock("https://hooks.slack.example").post("/services/secret-path").reply(404, "no_service");
  const result = await sendToSlack({ webhookUrl: "https://hooks.slack.example/services/secret-path", message: "x", logger });
  t.false(result.delivered);
  t.is(result.statusCode, 404);
  t.like(result.error, { classification: "notFound", messages: ["no_service"] });
  t.is(capture.lines.length, 1);
  t.is(capture.lines[0]!.level, "error");
  t.false(capture.text().includes("secret-path"));
});

test("an unreachable webhook is a network failure", async (t) => {
  const { logger } = capturing();
  nock("https://chat.example").post("/down").query(true).replyWithError(Object.assign(new Error("ECONNREFUSED"), { code: "ECONNREFUSED" }));
  const result = await sendToGoogleChat({ webhookUrl: "https://chat.example/down", message: "x", logger });
  t.false(result.delivered);
  t.is(result.error?.classification, "network");
});

test("throwOnError turns failures into NOTIFIERS_DELIVERY_FAILED", async (t) => {
  const { logger } = capturing();
  nock("https://hooks.slack.example").post("/services/x").reply(500, "boom");
  const error = await t.throwsAsync(sendToSlack({ webhookUrl: "https://hooks.slack.example/services/x", message: "x", throwOnError: true, logger }));
  t.true(hasErrorCode(error, NotifierErrors.DELIVERY_FAILED));
});

test("a malformed webhookUrl is NOTIFIERS_DELIVERY_FAILED, and neither the error nor the log holds the URL", async (t) => {
  const { capture, logger } = capturing();
  const webhookUrl = "hooks.slack.example/services/T1/B1/secret-token";
  const result = await sendToSlack({ webhookUrl, message: "x", logger });
  t.false(result.delivered);
  const error = await t.throwsAsync(sendToSlack({ webhookUrl, message: "x", throwOnError: true, logger }));
  t.true(hasErrorCode(error, NotifierErrors.DELIVERY_FAILED));
  t.is(error!.message, "Slack: posting to webhook failed: the webhook URL is not a valid URL");
  t.false(JSON.stringify(error).includes("secret-token"));
  t.false(JSON.stringify(result).includes("secret-token"));
  t.false(capture.text().includes("secret-token"));
});

test("a missing target or unknown channel is logged, or thrown with its code when asked", async (t) => {
  const { capture, logger } = capturing();
  t.false((await sendToSlack({ message: "x", logger })).delivered);
  t.false((await sendToZoom({ channel: "nope", message: "x", logger, env: {} })).delivered);
  t.is(capture.lines.length, 2);
  const missing = await t.throwsAsync(sendToSlack({ message: "x", logger, throwOnError: true }));
  t.true(hasErrorCode(missing, NotifierErrors.NO_WEBHOOK));
  const unknown = await t.throwsAsync(sendToSlack({ channel: "nope", message: "x", logger, throwOnError: true, env: { SLACK_WEBHOOKS: "{}" } }));
  t.true(hasErrorCode(unknown, NotifierErrors.UNKNOWN_CHANNEL));
});

test("an invalid webhook map is a configuration error naming the variable", (t) => {
  const error = t.throws(() => resolveWebhookUrl("googleChat", { channel: "a", env: { GOOGLE_CHAT_WEBHOOKS: "{not json" } }));
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.true((error as Error).message.includes("GOOGLE_CHAT_WEBHOOKS"));
});
