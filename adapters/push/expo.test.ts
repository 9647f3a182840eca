import test from "ava";
import nock from "nock";
import { loopbackOnlyNetwork } from "../../test/support/auth-test-app.js";
import { ExpoPushSender } from "./expo.js";
import { pushConformance } from "../conformance/push.js";

const API = "https://exp.host";
const PATH = "/--/api/v2/push/send";
const A = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]";
const B = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]";

loopbackOnlyNetwork(test);

const ticketsFor = (body: unknown, ticket: (to: string) => Record<string, unknown>) => ({ data: (body as Array<{ to: string }>).map((message) => ticket(message.to)) });

pushConformance(test, "expo", () => ({
  adapter: new ExpoPushSender({ env: {} }),
  targets: [{ token: A, kind: "expo" }, { token: B, kind: "expo" }],
  arrange: {
    accepted: () => void nock(API).post(PATH).reply(200, (_uri, body) => ticketsFor(body, (to) => ({ status: "ok", id: `ticket-${to.slice(18, 22)}` }))),
    permanent: () => void nock(API).post(PATH).reply(200, (_uri, body) => ticketsFor(body, () => ({ status: "error", message: "not registered", details: { error: "DeviceNotRegistered" } }))),
    transient: () => void nock(API).post(PATH).reply(503, { errors: [{ code: "INTERNAL", message: "down" }] }),
    config: () => void nock(API).post(PATH).reply(200, (_uri, body) => ticketsFor(body, () => ({ status: "error", message: "bad credentials", details: { error: "InvalidCredentials" } }))),
    malformed: () => void nock(API).post(PATH).reply(200, { data: "not tickets" }),
  },
  cleanup: () => void nock.cleanAll(),
}));

test.serial("tickets map to tokens in order; a partial failure fails only its token; the access token is sent", async (t) => {
  let authorization: string | undefined;
  nock(API)
    .post(PATH)
    .reply(function (_uri, body) {
      authorization = this.req.headers.authorization as string;
      return [200, { data: [{ status: "ok", id: "t-a" }, { status: "error", message: "gone", details: { error: "DeviceNotRegistered" } }] }];
    });
  const results = await new ExpoPushSender({ accessToken: "expo-secret", env: {} }).sendPush({ targets: [{ token: A, kind: "expo" }, { token: B, kind: "expo" }], title: "Hi" });
  t.like(results[0], { token: A, accepted: true, providerMessageId: "t-a" });
  t.like(results[1], { token: B, accepted: false, errorClass: "permanent", errorCode: "token-invalid" });
  t.is(authorization, "Bearer expo-secret");
});

test.serial("a token that is not an Expo token is refused without a request; rate limits are transient", async (t) => {
  nock(API).post(PATH).reply(200, { data: [{ status: "error", message: "slow down", details: { error: "MessageRateExceeded" } }] });
  const results = await new ExpoPushSender({ env: {} }).sendPush({ targets: [{ token: "garbage", kind: "expo" }, { token: A, kind: "expo" }] });
  t.like(results[0], { token: "garbage", errorCode: "token-invalid", errorClass: "permanent" });
  t.like(results[1], { token: A, errorCode: "rate-limited", errorClass: "transient" });
});

test.serial("more than 100 tokens go in batches of 100", async (t) => {
  const sizes: number[] = [];
  nock(API)
    .post(PATH)
    .times(2)
    .reply(200, (_uri, body) => {
      sizes.push((body as unknown[]).length);
      return ticketsFor(body, (to) => ({ status: "ok", id: to }));
    });
  const targets = Array.from({ length: 150 }, (_, i) => ({ token: `ExponentPushToken[${String(i).padStart(22, "0")}]`, kind: "expo" }));
  const results = await new ExpoPushSender({ env: {} }).sendPush({ targets });
  t.deepEqual(sizes, [100, 50]);
  t.true(results.every((result, i) => result.accepted && result.token === targets[i]!.token));
});

test("registration takes Expo's two token spellings and nothing else", (t) => {
  const expo = new ExpoPushSender({ env: {} });
  t.is(expo.validateToken("expo", A), undefined);
  t.is(expo.validateToken("expo", "ExpoPushToken[xxxxxxxxxxxxxxxxxxxxxx]"), undefined);
  for (const token of ["garbage", "ExponentPushToken[]", "ExponentPushToken[a]b", "https://exp.host/x"]) t.regex(expo.validateToken("expo", token) ?? "", /ExponentPushToken\[\.\.\.\]/, token);
  t.is(expo.validateToken("webpush", "garbage"), undefined, "other kinds are not this adapter's");
});
