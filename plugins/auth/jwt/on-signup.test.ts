import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../../hosts/testing.js";
import type { RequestUser } from "../../../contracts/request-user.js";
import { authTestApp, uniqueEmail } from "../../../test/support/auth-test-app.js";

test.after.always(() => stopTestDatabase());

const PASSWORD = "correct horse battery staple";

test("onSignup hears each new account once, after it exists; logins do not call it", async (t) => {
  const seen: RequestUser[] = [];
  let resolveSeen!: () => void;
  const called = new Promise<void>((resolve) => (resolveSeen = resolve));
  const { http } = await authTestApp(t, {
    onSignup: (user) => {
      seen.push(user);
      resolveSeen();
    },
  });
  const email = uniqueEmail();
  const signup = await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  await called;
  await request(http).post("/auth/login").send({ email, password: PASSWORD }).expect(200);
  t.is(seen.length, 1);
  t.is(seen[0]!.id, signup.body.data.userId);
  t.is(seen[0]!.email, email);
  t.false("passwordHash" in seen[0]!);
});

test("a throwing or rejecting onSignup is logged and the sign-up still succeeds", async (t) => {
  const { http, logs } = await authTestApp(t, { onSignup: async () => Promise.reject(new Error("mail server down")) });
  await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
  await new Promise((resolve) => setImmediate(resolve));
  t.true(logs.lines.some((line) => line.level === "error" && String(line.message).includes("onSignup failed: Error: mail server down")));

  const throwing = await authTestApp(t, {
    onSignup: () => {
      throw new Error("sync throw");
    },
  });
  await request(throwing.http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
  t.true(throwing.logs.lines.some((line) => String(line.message).includes("onSignup failed: Error: sync throw")));
});
