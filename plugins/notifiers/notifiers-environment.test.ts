import test from "ava";
import { ConfigErrors } from "../../kernel/environment.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { readNotifiersEnvironment } from "./notifiers-environment.js";

test("defaults: no webhooks and no secret", (t) => {
  t.deepEqual(readNotifiersEnvironment({}), { webhooks: { slack: {}, googleChat: {}, zoom: {} }, webhookSecret: undefined });
});

test("webhook maps parse into objects; WEBHOOK_SECRET is kept", (t) => {
  const env = readNotifiersEnvironment({
    SLACK_WEBHOOKS: JSON.stringify({ ops: "https://hooks.example/ops" }),
    ZOOM_WEBHOOKS: JSON.stringify({ support: "https://zoom.example/hook" }),
    WEBHOOK_SECRET: "whsec",
  });
  t.deepEqual(env.webhooks.slack, { ops: "https://hooks.example/ops" });
  t.deepEqual(env.webhooks.zoom, { support: "https://zoom.example/hook" });
  t.deepEqual(env.webhooks.googleChat, {});
  t.is(env.webhookSecret, "whsec");
});

for (const [name, value] of [
  ["SLACK_WEBHOOKS", "{not json"],
  ["GOOGLE_CHAT_WEBHOOKS", '["https://chat.example"]'],
  ["ZOOM_WEBHOOKS", '{"support":"ftp://zoom.example"}'],
] as const) {
  test(`a wrong ${name} is reported by name`, (t) => {
    const error = t.throws(() => readNotifiersEnvironment({ [name]: value }));
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
    t.true(error!.message.includes(name));
  });
}
