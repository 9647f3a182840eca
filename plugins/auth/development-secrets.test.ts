import test from "ava";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import request from "supertest";
import { authPlugin, hasErrorCode, SvcApp } from "../../index.js";
import { ConfigErrors } from "../../kernel/environment.js";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { TestUser, uniqueEmail } from "../../test/support/auth-test-app.js";
import { tempDir } from "../../test/support/temp-dir.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { AuthErrors } from "./index.js";
import { loadDevelopmentSecrets } from "./development-secrets.js";

test.after.always(() => stopTestDatabase());

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const PASSWORD = "correct horse battery staple";

/** An app with the auth plugin and only the given variables (no secrets unless given). */
async function appWith(env: Record<string, string>, logger: SvcLogger = silent): Promise<SvcApp> {
  const database = await startTestDatabase();
  return new SvcApp({
    env,
    database: { uri: database.uri, dbName: database.dbName },
    logger,
    handleSignals: false,
  }).register(authPlugin({ userModel: TestUser }));
}

test("in development, unset secrets come from a generated 0600 file, so tokens outlive a restart", async (t) => {
  const file = path.join(tempDir(t, "svc-dev-secrets-"), "nested", "secrets.json");
  const env = { NODE_ENV: "development", SVC_DEV_SECRETS_FILE: file };

  const first = await appWith(env);
  const { body } = await request(await first.build()).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
  await first.stop();

  const saved = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
  for (const name of ["TOKEN_SECRET", "REFRESH_TOKEN_SECRET", "SESSION_SECRET"]) t.true((saved[name] ?? "").length >= 32, name);
  t.is(new Set([saved.TOKEN_SECRET, saved.REFRESH_TOKEN_SECRET, saved.SESSION_SECRET]).size, 3, "one secret per purpose");
  if (process.platform !== "win32") t.is(statSync(file).mode & 0o777, 0o600);

  const second = await appWith(env);
  t.teardown(() => second.stop());
  const http = await second.build();
  await request(http).get("/auth/me").set("Authorization", `Bearer ${body.data.token}`).expect(200);
  t.deepEqual(JSON.parse(readFileSync(file, "utf8")), saved, "the second start reused the file unchanged");
});

test("variables that are set win, and nothing is written when none is missing", async (t) => {
  const file = path.join(tempDir(t, "svc-dev-secrets-"), "secrets.json");
  const app = await appWith({
    NODE_ENV: "development",
    SVC_DEV_SECRETS_FILE: file,
    TOKEN_SECRET: "token-secret-set-by-the-developer-0123456789",
    REFRESH_TOKEN_SECRET: "refresh-secret-set-by-the-developer-012345",
    SESSION_SECRET: "session-secret-set-by-the-developer-012345",
  });
  t.teardown(() => app.stop());
  await app.build();
  t.false(existsSync(file));
});

test("production and test runs never generate secrets: missing ones fail the start", async (t) => {
  const dir = tempDir(t, "svc-dev-secrets-");
  for (const NODE_ENV of ["production", "test"]) {
    const file = path.join(dir, `${NODE_ENV}.json`);
    const app = await appWith({ NODE_ENV, SVC_DEV_SECRETS_FILE: file, DB_URI: "mongodb://127.0.0.1:1/unused" });
    t.teardown(() => app.stop());
    const error = await t.throwsAsync(app.build());
    t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT), NODE_ENV);
    t.true(error!.message.includes("TOKEN_SECRET"));
    t.false(existsSync(file), `${NODE_ENV} wrote no secrets file`);
  }
});

test("a secrets file that is not a JSON object of strings stops the start instead of being overwritten", async (t) => {
  const file = path.join(tempDir(t, "svc-dev-secrets-"), "secrets.json");
  writeFileSync(file, "{ not json");
  const app = await appWith({ NODE_ENV: "development", SVC_DEV_SECRETS_FILE: file });
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.build());
  t.true(hasErrorCode(error, AuthErrors.DEVELOPMENT_SECRETS_INVALID));
  t.is(readFileSync(file, "utf8"), "{ not json");
});

test("another provider's secrets are added to the file, keeping the ones already there", (t) => {
  const file = path.join(tempDir(t, "svc-dev-secrets-"), "secrets.json");
  const jwt = loadDevelopmentSecrets(file, ["TOKEN_SECRET"]);
  const both = loadDevelopmentSecrets(file, ["TOKEN_SECRET", "SESSION_AUTH_SECRET"]);
  t.is(both.TOKEN_SECRET, jwt.TOKEN_SECRET);
  t.truthy(both.SESSION_AUTH_SECRET);
  t.deepEqual(loadDevelopmentSecrets(file, ["SESSION_AUTH_SECRET"]), both);
  if (process.platform !== "win32") t.is(statSync(file).mode & 0o777, 0o600);
});

/** A logger that keeps its warnings and its info lines. */
function warningsLog(): SvcLogger & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { ...silent, warnings, infos, warn: (message: string) => void warnings.push(message), info: (message: string) => void infos.push(message) };
}

test("a run on generated secrets against a real database warns once, saying what production must set", async (t) => {
  const file = path.join(tempDir(t, "svc-dev-secrets-"), "secrets.json");
  // No NODE_ENV at all, and DB_URI set: the case a forgotten deployment setting produces.
  const log = warningsLog();
  const app = await appWith({ SVC_DEV_SECRETS_FILE: file, DB_URI: "mongodb://db.example.com/app" }, log);
  t.teardown(() => app.stop());
  await app.build();
  const lines = log.warnings.filter((line) => line.includes("development defaults"));
  t.is(lines.length, 1, log.warnings.join("\n"));
  for (const part of ["TOKEN_SECRET", "REFRESH_TOKEN_SECRET", "SESSION_SECRET", file, "TOKEN_ISSUER=svc-development", "NODE_ENV=production"]) {
    t.true(lines[0]!.includes(part), part);
  }
});

test("on the embedded database (DB_URI unset) the same notice is an info line, not a warning", async (t) => {
  const log = warningsLog();
  const app = await appWith({ SVC_DEV_SECRETS_FILE: path.join(tempDir(t, "svc-dev-secrets-"), "secrets.json") }, log);
  t.teardown(() => app.stop());
  await app.build();
  t.false(log.warnings.some((line) => line.includes("development defaults")), log.warnings.join("\n"));
  t.is(log.infos.filter((line) => line.includes("development defaults")).length, 1, log.infos.join("\n"));
});

test("no warning when the developer set every auth variable", async (t) => {
  const log = warningsLog();
  const app = await appWith(
    {
      NODE_ENV: "development",
      SVC_DEV_SECRETS_FILE: path.join(tempDir(t, "svc-dev-secrets-"), "secrets.json"),
      TOKEN_ISSUER: "blog",
      TOKEN_SECRET: "token-secret-set-by-the-developer-0123456789",
      REFRESH_TOKEN_SECRET: "refresh-secret-set-by-the-developer-012345",
      SESSION_SECRET: "session-secret-set-by-the-developer-012345",
    },
    log,
  );
  t.teardown(() => app.stop());
  await app.build();
  t.false(log.warnings.some((line) => line.includes("development defaults")), log.warnings.join("\n"));
});
