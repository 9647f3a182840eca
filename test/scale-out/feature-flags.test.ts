// Feature flags with the app run as two processes on one database (docs/feature-flags.md): this
// process follows flag changes through the change stream, the second one (flags-second-process.ts)
// by polling. A change made through either process is evaluated anew by the other and announced
// to the other's sockets, and a key created through both at once is stored once.
import test from "ava";
import request from "supertest";
import { featureFlagModel } from "../../plugins/feature-flags/index.js";
import { TestUser, uniqueEmail } from "../support/auth-test-app.js";
import { recordingSocket, type RecordingSocket } from "../support/recording-socket.js";
import { twoProcesses } from "../support/second-process.js";
import { flagsApp } from "./flags-app.js";

const PASSWORD = "correct horse battery staple";

const { first, second, closers } = twoProcesses(test, (t) => flagsApp(t), new URL("./flags-second-process.ts", import.meta.url));

async function signup(admin = false): Promise<{ token: string; email: string }> {
  const { http } = await first;
  const email = uniqueEmail(admin ? "admin" : "user");
  const response = await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  if (admin) await TestUser.updateOne({ email }, { admin: true });
  return { token: response.body.data.token as string, email };
}

async function subscribed(socketUrl: string, token: string): Promise<RecordingSocket> {
  const client = await recordingSocket(socketUrl, { token, teardown: (fn) => closers.push(fn) });
  await client.next("featureFlagsSubscribed");
  return client;
}

let keyCounter = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++keyCounter}`;

const configuration = async (url: string | import("express").Express, token: string) =>
  (await request(url).get("/feature-flags/flagConfiguration").set("Authorization", `Bearer ${token}`).expect(200)).body.data as Record<string, { defaultVariant: string }>;

test("a flag changed through one process is evaluated anew by the other and announced to its sockets, both ways", async (t) => {
  const { http, socketUrl } = await first;
  const other = await second;
  const admin = await signup(true);
  const user = await signup();
  const [here, there] = await Promise.all([subscribed(socketUrl, user.token), subscribed(other.socketUrl!, user.token)]);
  const key = uniqueKey("across");
  const created = await request(http)
    .post("/feature-flags/flags")
    .set("Authorization", `Bearer ${admin.token}`)
    .send({ key, name: "Across", type: "boolean", enabled: true, rolloutPercentage: 0, rules: [{ field: "email", operator: "eq", value: user.email, enabled: true }] })
    .expect(201);
  const id = created.body.data._id as string;

  // The second process polls: once its socket hears of the flag, its cache has it.
  await there.next("featureFlagsChanged", (payload: { key: string }) => payload.key === key);
  t.is((await configuration(other.url, user.token))[key]?.defaultVariant, "on");
  await here.next("featureFlagsChanged", (payload: { key: string }) => payload.key === key);

  // The other way: a change through the polling process reaches this one's change stream.
  await request(other.url).patch(`/feature-flags/flags/${id}`).set("Authorization", `Bearer ${admin.token}`).send({ rules: [] }).expect(200);
  await here.next("featureFlagsChanged", (payload: { key: string }) => payload.key === key);
  t.is((await configuration(http, user.token))[key]?.defaultVariant, "off");
  await there.next("featureFlagsChanged", (payload: { key: string }) => payload.key === key);
  t.is((await configuration(other.url, user.token))[key]?.defaultVariant, "off");

  await request(other.url).patch(`/feature-flags/flags/${id}`).set("Authorization", `Bearer ${admin.token}`).send({ enabled: false }).expect(200);
  await Promise.all([here, there].map((socket) => socket.next("featureFlagsChanged", (payload: { key: string }) => payload.key === key)));
  t.false(key in (await configuration(http, user.token)));
  t.false(key in (await configuration(other.url, user.token)));
});

test("one key created through both processes at once: one flag, and the other answer is a 409", async (t) => {
  const { http } = await first;
  const other = await second;
  const admin = await signup(true);
  const keys = Array.from({ length: 10 }, () => uniqueKey("race"));
  const answers = await Promise.all(
    keys.flatMap((key) =>
      [http, other.url].map((target) =>
        request(target).post("/feature-flags/flags").set("Authorization", `Bearer ${admin.token}`).send({ key, name: "Race", type: "boolean", enabled: true }),
      ),
    ),
  );
  for (let index = 0; index < keys.length; index++) {
    const pair = [answers[2 * index]!, answers[2 * index + 1]!];
    t.deepEqual(pair.map((answer) => answer.status).sort(), [201, 409], JSON.stringify(pair.map((answer) => answer.body)));
    t.is(pair.find((answer) => answer.status === 409)?.body.errors[0].code, "DATABASE_DUPLICATE_KEY");
  }
  t.is(await featureFlagModel().countDocuments({ key: { $in: keys }, deleted: false }), keys.length);
});

test.after("the second process logged no error", async (t) => {
  const other = await second;
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(other.output(), "");
});
