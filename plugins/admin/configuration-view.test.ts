import test from "ava";
import request from "supertest";
import { stopTestDatabase, testAuthEnvironment } from "../../hosts/testing.js";
import { adminTestApp, testAdminOptions } from "../../test/support/admin-test-app.js";

test.after.always(() => stopTestDatabase());

test("the Configuration tool masks secrets in query strings, connection strings, JSON values and passwords holding @ or /", async (t) => {
  const env = {
    // Setting SESSION_AUTH_URL means the test sets every auth variable itself.
    ...testAuthEnvironment(),
    SESSION_AUTH_URL: "https://auth.example.com/callback?api_key=query-key-123&tenant=eu",
    DB_URI: "mongodb://app:db%40pass@db1,db2/app?replicaSet=rs0&tlsCertificateKeyFilePassword=cert-pass-456",
    // Not CACHE_URL itself, which the app would connect to: an app key holding the same kind of string.
    APP_CACHE: "redis://:raw@pass/word-789@cache.internal:6379",
    APP_PG: "host=pg.internal user=app password='pg secret 321' dbname=app",
    APP_MSSQL: "Server=sql.internal;User Id=app;Password=mssql-pass-654;",
    APP_SETTINGS: '{"region":"eu","db":{"password":"json-pass-987"},"hooks":[{"url":"https://h.example.com","signingKey":"json-key-111"}]}',
    APP_REGISTRY: "https://npm.example.com/@my-org",
  };
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), testAdminOptions({ basePath: "/cfg-masks", configurationKeys: ["APP_CACHE", "APP_PG", "APP_MSSQL", "APP_SETTINGS", "APP_REGISTRY"] }), env);
  const admin = await app.user({ roles: ["full"] });
  const response = await request(app.http).get("/cfg-masks/configuration").set({ Authorization: `Bearer ${admin.token}` }).expect(200);
  const text = JSON.stringify(response.body);
  for (const secret of ["query-key-123", "db%40pass", "cert-pass-456", "raw@pass", "pass/word-789", "word-789", "pg secret 321", "mssql-pass-654", "json-pass-987", "json-key-111"]) {
    t.false(text.includes(secret), secret);
  }
  const shown = response.body.data.environment as Record<string, string>;
  // What is not secret stays readable.
  t.is(shown.SESSION_AUTH_URL, "https://auth.example.com/callback?api_key=****&tenant=eu");
  t.is(shown.DB_URI, "mongodb://****@db1,db2/app?replicaSet=rs0&tlsCertificateKeyFilePassword=****");
  t.is(shown.APP_CACHE, "redis://****@cache.internal:6379");
  t.is(shown.APP_PG, "host=pg.internal user=app password=**** dbname=app");
  t.is(shown.APP_MSSQL, "Server=sql.internal;User Id=app;Password=****;");
  t.deepEqual(JSON.parse(shown.APP_SETTINGS!), { region: "eu", db: { password: "[REDACTED]" }, hooks: [{ url: "https://h.example.com", signingKey: "[REDACTED]" }] });
  t.is(shown.APP_REGISTRY, "https://npm.example.com/@my-org");
});
