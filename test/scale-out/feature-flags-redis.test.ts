// Feature flags on two processes that share Redis (CACHE_URL): each process announces a change
// to its own sockets from its own change detection, so with the Redis socket adapter in place a
// socket still hears of a change once, not once per process.
import test from "ava";
import request from "supertest";
import { SOCKET_SERVER } from "../../contracts/socket-server.js";
import { TestUser, uniqueEmail } from "../support/auth-test-app.js";
import { recordingSocket } from "../support/recording-socket.js";
import { startTestRedis } from "../support/redis-server.js";
import { twoProcesses } from "../support/second-process.js";
import { flagsApp } from "./flags-app.js";

const redis = startTestRedis();
const cacheUrl = redis.then(({ url }) => ({ CACHE_URL: url }));
const { first, second } = twoProcesses(test, async (t) => flagsApp(t, { env: await cacheUrl }), new URL("./flags-second-process.ts", import.meta.url), cacheUrl);
// After the processes' own clean-up (hooks run in the order they are declared).
test.after.always(async () => (await redis.catch(() => undefined))?.stop());

test("a socket on either process hears of a flag change once", async (t) => {
  const [one, two] = [await first, await second];
  const signup = async (admin: boolean) => {
    const email = uniqueEmail(admin ? "admin" : "user");
    const response = await request(one.http).post("/auth/signup").send({ email, password: "correct horse battery staple" }).expect(201);
    if (admin) await TestUser.updateOne({ email }, { admin: true });
    return response.body.data.token as string;
  };
  const [admin, user] = [await signup(true), await signup(false)];
  const sockets = await Promise.all(
    [one.socketUrl, two.socketUrl!].map(async (url) => {
      const client = await recordingSocket(url, { token: user, teardown: (fn) => t.teardown(fn) });
      await client.next("featureFlagsSubscribed");
      return client;
    }),
  );
  const key = `redis-flag-${process.pid}`;
  await request(one.http).post("/feature-flags/flags").set("Authorization", `Bearer ${admin}`).send({ key, name: "Once", type: "boolean", enabled: true, rolloutPercentage: 100 }).expect(201);
  for (const socket of sockets) await socket.next("featureFlagsChanged", (payload: { key: string }) => payload.key === key);

  // Both processes have announced once the polling one serves the flag (it announces as it
  // loads it). A broadcast from the first through Redis then comes after any relayed copy.
  const served = async () => {
    const configuration = await request(two.url).get("/feature-flags/flagConfiguration").set("Authorization", `Bearer ${user}`).expect(200);
    return key in (configuration.body.data as Record<string, unknown>);
  };
  while (!(await served())) await new Promise((resolve) => setTimeout(resolve, 20));
  one.app.resolve(SOCKET_SERVER).emit("svc-test:marker", {});
  for (const socket of sockets) {
    await socket.next("svc-test:marker");
    t.is(socket.events.filter(([name, payload]) => name === "featureFlagsChanged" && (payload as { key: string }).key === key).length, 1);
  }
  t.is(two.output(), "");
});
