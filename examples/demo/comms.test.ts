// The demo's comms: a sign-up gets a welcome mail, visible to admins in the delivery log.
import test from "ava";
import request from "supertest";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { bearer, createTestApp, createUser, loginAs, stopTestDatabase, uniqueTestEmail } from "../../hosts/testing.js";
import { COMMS_SERVICE } from "../../plugins/comms/index.js";
import { withDemoPlugins } from "./app.js";

test.after.always(() => stopTestDatabase());

test("a sign-up is welcomed by mail, and an admin sees it in the delivery log", async (t) => {
  const app = withDemoPlugins(await createTestApp()).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  const http = await app.build();
  const admin = bearer(await loginAs(app, await createUser(app, { admin: true, roles: ["admin"] })));
  const comms = app.resolve(COMMS_SERVICE);
  const since = new Date().toISOString();

  const email = uniqueTestEmail("welcome");
  await request(http).post("/auth/signup").send({ email, password: "correct horse battery staple", name: "Ada" }).expect(201);
  // The welcome goes out after the sign-up answered; wait for its row (a bounded number of turns).
  let rows: Array<{ channel: string; status: string; payload?: { subject?: string; to?: string } }> = [];
  for (let turn = 0; turn < 50 && rows.length === 0; turn++) {
    await comms.flushLog();
    rows = (await request(http).get(`/comms/messages?channel=mail&created[$gte]=${since}`).set(admin).expect(200)).body.data;
    if (rows.length === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  t.is(rows.length, 1);
  t.like(rows[0], { channel: "mail", status: "sent", payload: { subject: "Welcome to the svc demo, Ada", to: "[redacted]" } });
  t.false(JSON.stringify(rows[0]).includes(email), "the address appears nowhere in the row, body included");
});
