// `npm run create-admin` exactly as a developer runs it (a child process, NODE_ENV=development),
// pointed at this test process's database; the new credentials then sign in through the demo's
// real routes.
import test from "ava";
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import request from "supertest";
import { bearer, createTestApp, loginAs, startTestDatabase, stopTestDatabase, TestingErrors, uniqueTestEmail } from "../../hosts/testing.js";
import { withDemoPlugins } from "./app.js";
import { tempDir } from "../../test/support/temp-dir.js";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

test.after.always(() => stopTestDatabase());

/** The test database's URI with its database name in the path (what DB_URI carries). */
function withDatabaseName(uri: string, dbName: string): string {
  const [base, query] = uri.split("?", 2) as [string, string | undefined];
  return `${base.replace(/\/+$/, "")}/${dbName}${query === undefined ? "" : `?${query}`}`;
}

async function createAdmin(t: { teardown(fn: () => void): void }, args: string[], extraEnv: Record<string, string> = {}) {
  const database = await startTestDatabase();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "development",
    DB_URI: withDatabaseName(database.uri, database.dbName),
    // Development secrets go to a temp file, never into the repository's .svc/.
    SVC_DEV_SECRETS_FILE: path.join(tempDir(t, "svc-create-admin-"), "secrets.json"),
    ...extraEnv,
  };
  delete env.ADMIN_EMAIL;
  if (!("ADMIN_PASSWORD" in extraEnv)) delete env.ADMIN_PASSWORD;
  return run("npm", ["run", "--silent", "create-admin", "--", ...args], { cwd: root, env });
}

test("npm run create-admin creates an admin whose printed password signs in to the demo", async (t) => {
  const email = uniqueTestEmail("demo-admin");
  const { stdout } = await createAdmin(t, ["--email", email, "--field", "name=Demo Admin"]);
  const password = /Password \(shown once[^)]*\): (\S+)/.exec(stdout)?.[1];
  t.truthy(password, stdout);

  const app = withDemoPlugins(await createTestApp());
  t.teardown(() => app.stop());
  const http = await app.build();
  const me = await request(http).get("/auth/me").set(bearer(await loginAs(app, { email, password: password! }))).expect(200);
  t.like(me.body.data, { email, name: "Demo Admin", admin: true });
});

test("running it again for the same email resets the password (from ADMIN_PASSWORD)", async (t) => {
  const email = uniqueTestEmail("demo-reset");
  const first = await createAdmin(t, ["--email", email]);
  const firstPassword = /Password \(shown once[^)]*\): (\S+)/.exec(first.stdout)?.[1];
  const second = await createAdmin(t, ["--email", email], { ADMIN_PASSWORD: "the reset password" });
  t.regex(second.stdout, /now an admin/);

  const app = withDemoPlugins(await createTestApp());
  t.teardown(() => app.stop());
  t.is(typeof (await loginAs(app, { email, password: "the reset password" })), "string");
  const old = await t.throwsAsync(loginAs(app, { email, password: firstPassword! }));
  t.is((old as { code?: string }).code, TestingErrors.LOGIN_FAILED.code);
});
