// The demo's comms: a sign-up gets a welcome mail, visible to admins in the delivery log.
import test from "ava";
import request from "supertest";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { bearer, createTestApp, createUser, loginAs, stopTestDatabase, uniqueTestEmail } from "../../hosts/testing.js";
import { COMMS_SERVICE, ConsoleMailer, MAILERS } from "../../plugins/comms/index.js";
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
    // Only this sign-up's welcome: the file's other tests send mails meanwhile.
    rows = ((await request(http).get(`/comms/messages?channel=mail&created[$gte]=${since}`).set(admin).expect(200)).body.data as typeof rows).filter(
      (row) => row.payload?.subject === "Welcome to the svc demo, Ada",
    );
    if (rows.length === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  t.is(rows.length, 1);
  t.like(rows[0], { channel: "mail", status: "sent", payload: { subject: "Welcome to the svc demo, Ada", to: "[redacted]" } });
  t.false(JSON.stringify(rows[0]).includes(email), "the address appears nowhere in the row, body included");
});

test("forgot password: the reset mail carries a working link, and its body stays out of the delivery log", async (t) => {
  const app = withDemoPlugins(await createTestApp()).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  const http = await app.build();
  const admin = bearer(await loginAs(app, await createUser(app, { admin: true, roles: ["admin"] })));
  const comms = app.resolve(COMMS_SERVICE);
  const mailer = app.resolve(MAILERS)[0] as ConsoleMailer;
  const email = uniqueTestEmail("forgot");
  await request(http).post("/auth/signup").send({ email, password: "correct horse battery staple" }).expect(201);

  await request(http).post("/auth/password_reset").send({ email }).expect(202);
  // The mail goes out after the answer (a bounded number of turns).
  let link: RegExpExecArray | null = null;
  for (let turn = 0; turn < 200 && !link; turn++) {
    link = /^http:\/\/localhost:\d+\/app\/\?reset=([A-Za-z0-9_-]{43})$/m.exec(mailer.sent.findLast((mail) => mail.to === email && /Reset/.test(mail.subject ?? ""))?.text ?? "");
    if (!link) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  t.truthy(link, "the reset mail has the link");
  await request(http).post("/auth/password_reset/confirm").send({ token: link![1], newPassword: "a brand new horse battery" }).expect(204);
  await request(http).post("/auth/login").send({ email, password: "a brand new horse battery" }).expect(200);

  await comms.flushLog();
  const rows = (await request(http).get("/comms/messages?channel=mail").set(admin).expect(200)).body.data as Array<{ payload?: { subject?: string; text?: string; html?: string } }>;
  const row = rows.find((each) => each.payload?.subject === "Reset your svc demo password");
  t.like(row?.payload, { text: "[redacted]", html: "[redacted]" });
  t.false(JSON.stringify(rows).includes(link![1]), "the token appears in no delivery-log row");
});
