import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { HttpErrors } from "../../../kernel/http-errors.js";
import { authTestApp, errorCode, loopbackOnlyNetwork, SESSION_ENV, uniqueEmail } from "../../../test/support/auth-test-app.js";

loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

const PASSWORD = "correct horse battery staple";

test("JWT routes take JSON only: a form or text body answers 415, never a misleading field error", async (t) => {
  const { http } = await authTestApp(t);
  const email = uniqueEmail("media");
  for (const path of ["/auth/signup", "/auth/login", "/auth/refresh_token"]) {
    const form = await request(http).post(path).type("form").send({ email, password: PASSWORD }).expect(415);
    t.is(errorCode(form), HttpErrors.UNSUPPORTED_MEDIA_TYPE.code, path);
  }
  const text = await request(http).patch("/auth/me").set("Content-Type", "text/plain").send("name=Ada").expect(415);
  t.is(errorCode(text), HttpErrors.UNSUPPORTED_MEDIA_TYPE.code);
  await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  const me = await request(http).get("/auth/me").expect(401);
  t.is(errorCode(me), HttpErrors.UNAUTHENTICATED.code, "requests without a body are unaffected");
});

test("session routes take JSON, except the OAuth callback, which providers may POST as a form", async (t) => {
  const { http } = await authTestApp(t, { sessionAuth: { trustedOrigins: ["https://app.example.com"] } }, {
    ...SESSION_ENV,
    GITHUB_CLIENT_ID: "gh-media-client",
    GITHUB_CLIENT_SECRET: "gh-media-secret",
  });
  const signup = await request(http).post("/api/auth/signup/email").type("form").send({ email: uniqueEmail("form"), password: PASSWORD }).expect(415);
  t.is(errorCode(signup), HttpErrors.UNSUPPORTED_MEDIA_TYPE.code);
  const callback = await request(http).post("/api/auth/callback/github").type("form").send({ code: "c", state: "s" });
  t.not(callback.status, 415);
});
