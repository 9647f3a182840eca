import test from "ava";
import nock from "nock";
import { ConfigErrors } from "../../kernel/environment.js";
import { hasErrorCode } from "../../kernel/errors.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { createSvcLogger, LogCapture } from "../logging/index.js";
import { NOTIFIERS, type Notifiers } from "./notifiers-plugin.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

const silent = { debug() {}, info() {}, warn() {}, error() {} };

test("a malformed webhook map fails the app in the register phase, naming the variable", (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "test", SLACK_WEBHOOKS: "{not json" }, database: false, logger: silent, handleSignals: false });
  const error = t.throws(() => app.kernel.register());
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.true(error!.message.includes("SLACK_WEBHOOKS"));
});

test("NOTIFIERS resolves channels from the app's environment and logs through the app's logger", async (t) => {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  let notifiers: Notifiers | undefined;
  const user: SvcPlugin = {
    name: "notifying-plugin",
    start(ctx) {
      notifiers = ctx.resolve(NOTIFIERS);
    },
  };
  const env = {
    NODE_ENV: "test",
    SLACK_WEBHOOKS: JSON.stringify({ alerts: "https://hooks.slack.example/services/app-alerts" }),
    GOOGLE_CHAT_WEBHOOKS: JSON.stringify({ ops: "https://chat.example/v1/spaces/OPS/messages" }),
  };
  const app = new SvcApp({ env, database: false, logger, handleSignals: false }).register(user);
  await app.build();
  t.teardown(() => app.stop());

  const scope = nock("https://hooks.slack.example").post("/services/app-alerts", { text: "hi" }).reply(200, "ok");
  t.true((await notifiers!.sendToSlack({ channel: "alerts", message: "hi" })).delivered);
  t.true(scope.isDone());

  nock("https://chat.example").post("/v1/spaces/OPS/messages").reply(500, "down");
  t.false((await notifiers!.sendToGoogleChat({ channel: "ops", message: "x" })).delivered);
  t.is(capture.lines.filter((line) => line.level === "error" && line.notifier === "googleChat").length, 1);
});
