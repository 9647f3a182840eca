// Provider names are what the delivery log and the webhook routes tell providers apart by: an app
// whose providers would be confused does not start, and says which to rename.
import test from "ava";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { createSvcLogger, LogCapture } from "../logging/index.js";
import { commsPlugin, CommsErrors, type DeliveryWebhook, type Mailer } from "./index.js";

test.after.always(() => stopTestDatabase());

const webhook = (provider: string): DeliveryWebhook => ({ provider, mediaType: "json", read: () => undefined });
const mailer = (name: string, hook?: DeliveryWebhook): Mailer => ({ name, webhook: hook, sendMail: async () => ({ accepted: true, isPermanentFailure: false, providerMessageId: `${name}-1` }) });

async function startFailure(t: import("ava").ExecutionContext, plugin: ReturnType<typeof commsPlugin>): Promise<unknown> {
  const app = (await createTestApp()).register(plugin);
  t.teardown(() => app.stop());
  return t.throwsAsync(() => app.build());
}

test("two providers of one channel with one name", async (t) => {
  const error = await startFailure(t, commsPlugin({ mail: [mailer("postbox"), mailer("postbox")] }));
  t.true(hasErrorCode(error, CommsErrors.DUPLICATE_PROVIDER), String(error));
});

test("two providers whose delivery webhooks have one name (one route): named, not an OpenAPI clash", async (t) => {
  const error = await startFailure(t, commsPlugin({ mail: [mailer("postbox", webhook("postbox")), mailer("postbox-eu", webhook("postbox"))] }));
  t.true(hasErrorCode(error, CommsErrors.DUPLICATE_WEBHOOK), String(error));
  t.regex(String((error as Error).message), /"postbox" and "postbox-eu" both have a delivery webhook named "postbox"/);
});

test("a webhook whose events name a provider no adapter is called: ignored, as before, and one warning says why", async (t) => {
  const logs = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [logs] });
  // An adapter named postbox-eu whose webhook (and events) say postbox: rows name postbox-eu.
  const hook: DeliveryWebhook = {
    provider: "postbox",
    mediaType: "json",
    read: (webhookRequest) => ({
      replayKey: webhookRequest.rawBody.toString("utf8"),
      events: [{ provider: "postbox", providerMessageId: "pb-1", type: "delivered" }],
      optOuts: [],
    }),
  };
  const app = (await createTestApp({ logger })).register(commsPlugin({ mail: mailer("postbox-eu", hook) }));
  t.teardown(() => app.stop());
  const http = await app.build();
  for (const body of [{ n: 1 }, { n: 2 }]) {
    const answer = await request(http).post("/comms/webhooks/postbox").send(body).expect(200);
    t.deepEqual(answer.body.data, { recorded: 0, ignored: 1, optOuts: 0 });
  }
  const warnings = logs.lines.filter((line) => line.level === "warn" && /webhook postbox/.test(line.message)).map((line) => line.message);
  t.is(warnings.length, 1, JSON.stringify(warnings));
  t.regex(warnings[0]!, /name provider "postbox", which no configured provider is called.*postbox-eu/);
});
