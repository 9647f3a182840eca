import test from "ava";
import { createECDH, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { Types } from "mongoose";
import webpush from "web-push";
import { stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { PushAdapterErrors } from "./errors.js";
import { WebPushSender } from "./web-push.js";
import { pushConformance } from "../conformance/push.js";
import { pushTokenModel } from "../../plugins/comms/index.js";
import { commsTestApp } from "../../test/support/comms-test-app.js";

// A local push service over HTTPS (web-push speaks only HTTPS), with a test certificate the
// adapter's agent trusts: verification stays on.
const cert = readFileSync(new URL("./test-support/localhost-cert.pem", import.meta.url));
const key = readFileSync(new URL("./test-support/localhost-key.pem", import.meta.url));
type Mode = "accept" | "permanent" | "transient" | "config" | "malformed";
let mode: Mode = "accept";
const received: Array<{ path: string; headers: Record<string, unknown>; bytes: number }> = [];
let server: Server;
let origin = "";

test.before(async () => {
  server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, bytes: Buffer.concat(chunks).length });
      const gone = req.url?.includes("gone");
      if (mode === "malformed") {
        req.socket.end("this is not http\r\n\r\n");
        return;
      }
      const status = gone || mode === "permanent" ? 410 : mode === "transient" ? 503 : mode === "config" ? 403 : 201;
      res.writeHead(status, status === 201 ? { Location: `${origin}/messages/${randomBytes(4).toString("hex")}` } : {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(() => new Promise<void>((resolve) => server.close(() => resolve())));
test.after.always(() => stopTestDatabase());

/** A browser subscription: a fresh P-256 key pair and auth secret, at the local push service. */
function subscription(name: string): string {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return JSON.stringify({ endpoint: `${origin}/push/${name}`, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") } });
}

const vapid = webpush.generateVAPIDKeys();
// The local push service is on 127.0.0.1, which the default allow-list (browsers' push services) refuses.
const LOCAL = ["127.0.0.1"];
const sender = () => new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid }, agent: new Agent({ ca: cert }), timeoutMs: 5000, allowedEndpointHosts: LOCAL });
const arrange = (next: Mode) => () => void (mode = next);

pushConformance(test, "webpush", () => ({
  adapter: sender(),
  targets: [{ token: subscription("one"), kind: "webpush" }, { token: subscription("two"), kind: "webpush" }],
  arrange: { accepted: arrange("accept"), permanent: arrange("permanent"), transient: arrange("transient"), config: arrange("config"), malformed: arrange("malformed") },
  cleanup: () => void (mode = "accept"),
}));

test.serial("the push service gets an encrypted payload with VAPID authorization and a TTL", async (t) => {
  mode = "accept";
  const before = received.length;
  const [result] = await sender().sendPush({ targets: [{ token: subscription("headers"), kind: "webpush" }], title: "Hi", body: "There" });
  t.true(result!.accepted);
  t.true(result!.providerMessageId!.startsWith(`${origin}/messages/`));
  const request = received[before]!;
  t.is(request.path, "/push/headers");
  t.regex(String(request.headers.authorization), /^vapid t=.+, k=.+$/);
  t.is(request.headers["content-encoding"], "aes128gcm");
  t.is(request.headers.ttl, "86400");
  t.true(request.bytes > 0);
});

test.serial("a gone subscription is permanent (the token gets deactivated); a malformed token is refused unsent", async (t) => {
  mode = "accept";
  const results = await sender().sendPush({ targets: [{ token: subscription("gone"), kind: "webpush" }, { token: "{not json", kind: "webpush" }, { token: subscription("fine"), kind: "webpush" }] });
  t.like(results[0], { accepted: false, errorClass: "permanent", errorCode: "token-invalid" });
  t.like(results[1], { accepted: false, errorClass: "permanent", errorCode: "token-invalid" });
  t.like(results[2], { accepted: true });
});

test.serial("a push service that does not answer is a transient network failure: the adapter waits 30 s by default, timeoutMs otherwise", async (t) => {
  const silent = createServer({ cert, key }, () => undefined); // takes the request, never answers
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
  t.teardown(() => void silent.closeAllConnections());
  t.teardown(() => new Promise<void>((resolve) => silent.close(() => resolve())));
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const token = JSON.stringify({ endpoint: `https://127.0.0.1:${(silent.address() as AddressInfo).port}/push/silent`, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") } });
  const quick = new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid }, agent: new Agent({ ca: cert }), timeoutMs: 200, allowedEndpointHosts: LOCAL });
  const [result] = await quick.sendPush({ targets: [{ token, kind: "webpush" }], title: "Hi" });
  t.like(result, { accepted: false, errorCode: "network", errorClass: "transient" });
  // The default: the library's request carries a timeout (web-push sets none of its own).
  const original = webpush.sendNotification;
  let timeout: unknown;
  webpush.sendNotification = ((_subscription: unknown, _payload: unknown, options?: { timeout?: number }) => {
    timeout = options?.timeout;
    return Promise.resolve({ statusCode: 201, body: "", headers: {} });
  }) as typeof webpush.sendNotification;
  try {
    await new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid }, allowedEndpointHosts: LOCAL }).sendPush({ targets: [{ token, kind: "webpush" }], title: "Hi" });
  } finally {
    webpush.sendNotification = original;
  }
  t.is(timeout, 30_000);
});

test("the adapter needs VAPID details", (t) => {
  t.true(hasErrorCode(t.throws(() => new WebPushSender({ env: {} })), PushAdapterErrors.VAPID_REQUIRED.code));
  t.false(sender().supports("expo"));
});

/** A subscription JSON at `endpoint`, with real keys. */
function subscriptionAt(endpoint: string): string {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return JSON.stringify({ endpoint, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") } });
}

test("only subscriptions at the browsers' push services are taken by default; allowedEndpointHosts replaces the list", (t) => {
  const webPush = new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid } });
  for (const endpoint of [
    "https://fcm.googleapis.com/fcm/send/abc",
    "https://android.googleapis.com/gcm/send/abc",
    "https://updates.push.services.mozilla.com/wpush/v2/abc",
    "https://wns2-by3p.notify.windows.com/w/?token=abc",
    "https://web.push.apple.com/QGx",
  ]) {
    t.is(webPush.validateToken("webpush", subscriptionAt(endpoint)), undefined, endpoint);
  }
  for (const endpoint of [
    "https://169.254.169.254/latest/meta-data",
    "https://127.0.0.1:8443/push",
    "https://localhost/push",
    "https://10.0.0.7/push",
    "http://fcm.googleapis.com/fcm/send/abc",
    "https://fcm.googleapis.com.evil.example/x",
    "https://evilpush.apple.com/x",
    "https://push.services.mozilla.com/x",
    "not a url",
  ]) {
    t.regex(webPush.validateToken("webpush", subscriptionAt(endpoint)) ?? "", /endpoint/, endpoint);
  }
  t.regex(webPush.validateToken("webpush", "{not json") ?? "", /PushSubscription as JSON/);
  t.regex(webPush.validateToken("webpush", JSON.stringify({ endpoint: "https://fcm.googleapis.com/fcm/send/abc", keys: { p256dh: "x" } })) ?? "", /keys\.auth/);
  t.is(webPush.validateToken("expo", "anything"), undefined, "other kinds are not this adapter's");
  const own = new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid }, allowedEndpointHosts: ["push.example.com", "*.push.example.net"] });
  t.is(own.validateToken("webpush", subscriptionAt("https://push.example.com/x")), undefined);
  t.is(own.validateToken("webpush", subscriptionAt("https://eu.push.example.net/x")), undefined);
  t.not(own.validateToken("webpush", subscriptionAt("https://fcm.googleapis.com/fcm/send/abc")), undefined);
});

test.serial("a stored subscription at a host not allowed is never fetched: its token is deactivated", async (t) => {
  mode = "accept";
  const { comms } = await commsTestApp(t, { push: new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid }, agent: new Agent({ ca: cert }) }) });
  const ownerId = new Types.ObjectId();
  // Stored before registration checked endpoints (or written by other code): 127.0.0.1 here.
  const token = subscription("internal");
  await pushTokenModel().create({ token, kind: "webpush", ownerId, active: true });
  const before = received.length;
  const result = await comms.getCommsService().sendPushToUser(ownerId.toHexString(), { title: "Hi" });
  t.is(received.length, before, "no request reached the endpoint");
  t.like(result.tokens[0], { accepted: false, errorCode: "token-invalid", errorClass: "permanent" });
  t.like(await pushTokenModel().findOne({ token }).lean(), { active: false, deactivationReason: "provider", deactivationCode: "token-invalid" });
});
