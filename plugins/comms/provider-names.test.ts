// Provider names are what the delivery log and the webhook routes tell providers apart by: an app
// whose providers would be confused does not start, and says which to rename.
import test from "ava";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
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
