import test from "ava";
import { ConsolePushSender } from "./console.js";
import { pushConformance } from "../conformance/push.js";

const subscription = JSON.stringify({ endpoint: "https://fcm.googleapis.com/fcm/send/abc", keys: { p256dh: "BPcMbn", auth: "c2VjcmV0" } });
pushConformance(test, "console", () => ({ adapter: new ConsolePushSender(), targets: [{ token: "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]", kind: "expo" }, { token: subscription, kind: "webpush" }] }));

test("the console sender refuses the tokens the real senders would (so development takes none production cannot use)", (t) => {
  const sender = new ConsolePushSender();
  t.is(sender.validateToken("expo", "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"), undefined);
  t.not(sender.validateToken("expo", "garbage"), undefined);
  const at = (endpoint: string) => JSON.stringify({ endpoint, keys: { p256dh: "BPcMbn", auth: "c2VjcmV0" } });
  t.is(sender.validateToken("webpush", at("https://fcm.googleapis.com/fcm/send/abc")), undefined);
  t.not(sender.validateToken("webpush", at("https://169.254.169.254/latest/meta-data")), undefined);
  t.is(new ConsolePushSender({ allowedEndpointHosts: ["127.0.0.1"] }).validateToken("webpush", at("https://127.0.0.1/push")), undefined);
  t.is(sender.validateToken("carrier-pigeon", "anything"), undefined);
});
