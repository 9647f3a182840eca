import test from "ava";
import { createECDH, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import webpush from "web-push";
import { hasErrorCode } from "../../kernel/errors.js";
import { PushAdapterErrors } from "./errors.js";
import { WebPushSender } from "./web-push.js";
import { pushConformance } from "../conformance/push.js";

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

/** A browser subscription: a fresh P-256 key pair and auth secret, at the local push service. */
function subscription(name: string): string {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return JSON.stringify({ endpoint: `${origin}/push/${name}`, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") } });
}

const vapid = webpush.generateVAPIDKeys();
const sender = () => new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid }, agent: new Agent({ ca: cert }), timeoutMs: 5000 });
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
  const quick = new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid }, agent: new Agent({ ca: cert }), timeoutMs: 200 });
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
    await new WebPushSender({ vapid: { subject: "mailto:ops@example.com", ...vapid } }).sendPush({ targets: [{ token, kind: "webpush" }], title: "Hi" });
  } finally {
    webpush.sendNotification = original;
  }
  t.is(timeout, 30_000);
});

test("the adapter needs VAPID details", (t) => {
  t.true(hasErrorCode(t.throws(() => new WebPushSender({ env: {} })), PushAdapterErrors.VAPID_REQUIRED.code));
  t.false(sender().supports("expo"));
});
