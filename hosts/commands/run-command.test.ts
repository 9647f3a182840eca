// The commands as a project runs them: its own app (the package entry), `runCommand` from the
// commands entry, and the result checked by signing in through the app's real routes.
import test from "ava";
import mongoose, { Schema } from "mongoose";
import { Readable } from "node:stream";
import request from "supertest";
import { AuthErrors, authPlugin, baseUserPlugin, createScryptHasher, isDeletedPlugin, isDisabledPlugin, PASSWORD_HASHER, type SvcAppOptions } from "../../index.js";
import { bearer, createTestApp, createUser, loginAs, stopTestDatabase, testAuthEnvironment, TestingErrors, uniqueTestEmail } from "../testing.js";
import { SvcApp } from "../svc-app.js";
import { AppAccountsErrors, CommandErrors, createAdminUser, runCommand } from "./index.js";

const userSchema = new Schema({ name: { type: String, required: true, description: "Display name" } }, { strict: "throw" });
userSchema.plugin(baseUserPlugin);
userSchema.plugin(isDisabledPlugin);
userSchema.plugin(isDeletedPlugin);
const User = mongoose.models.CommandTestUser ?? mongoose.model("CommandTestUser", userSchema);

test.after.always(() => stopTestDatabase());

/** The project's app factory: the server, the command and the tests each build their own. */
async function projectApp(options: SvcAppOptions = {}) {
  return (await createTestApp(options))
    .register(authPlugin({ userModel: User, profileFields: ["name"] }))
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
}

/** Runs a command on a fresh app, capturing what it prints. */
async function run(argv: string[], options: { stdin?: string; app?: SvcAppOptions } = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runCommand(await projectApp(options.app), argv, {
    userModel: User,
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** Signs in through the real routes of a new app and returns `GET /auth/me`. */
async function me(t: { teardown(fn: () => Promise<void>): void }, credentials: { email: string; password: string }) {
  const app = await projectApp();
  t.teardown(() => app.stop());
  const http = await app.build();
  return (await request(http).get("/auth/me").set(bearer(await loginAs(app, credentials))).expect(200)).body.data;
}

test("create-admin creates an admin with a generated password, printed once, that signs in", async (t) => {
  const email = uniqueTestEmail("admin");
  const { code, stdout, stderr } = await run(["create-admin", "--email", email.toUpperCase(), "--field", "name=Ada"]);
  t.is(code, 0, stderr);
  t.regex(stdout, /created/);
  const password = /Password \(shown once[^)]*\): (\S+)/.exec(stdout)?.[1];
  t.truthy(password, stdout);
  t.like(await me(t, { email, password: password! }), { email, name: "Ada", admin: true });
});

test("create-admin on an existing user makes it an admin and resets its password (read from stdin)", async (t) => {
  const app = await projectApp();
  const ada = await createUser(app, { name: "Ada" });
  await app.stop();

  const { code, stdout, stderr } = await run(["create-admin", "--email", ada.email, "--password-stdin"], { stdin: "a new password 123\n" });
  t.is(code, 0, stderr);
  t.regex(stdout, /now an admin/);
  t.regex(stdout, /from stdin/);
  t.false(stdout.includes("a new password 123"), "a given password is never echoed");

  t.like(await me(t, { email: ada.email, password: "a new password 123" }), { id: ada.id, admin: true });
  const other = await projectApp();
  t.teardown(() => other.stop());
  t.true(hasCode(await t.throwsAsync(loginAs(other, ada)), TestingErrors.LOGIN_FAILED), "the old password no longer works");
});

test("create-admin takes the password from ADMIN_PASSWORD and the email from ADMIN_EMAIL", async (t) => {
  const email = uniqueTestEmail("env");
  const { code, stdout } = await run(["create-admin", "--field", "name=Env"], { app: { env: { ADMIN_EMAIL: email, ADMIN_PASSWORD: "from the environment" } } });
  t.is(code, 0);
  t.regex(stdout, /from ADMIN_PASSWORD/);
  t.like(await me(t, { email, password: "from the environment" }), { admin: true });
});

test("passwords on the command line are refused before anything is created", async (t) => {
  const email = uniqueTestEmail("argv");
  const { code, stderr } = await run(["create-admin", "--email", email, "--password", "visible-in-ps"]);
  t.is(code, 2);
  t.true(stderr.includes(CommandErrors.PASSWORD_ON_COMMAND_LINE.code));
  // The refused command never opened the database: an app of its own reads it.
  const reader = await projectApp();
  await reader.build();
  t.teardown(() => reader.stop());
  t.is(await User.countDocuments({ email }), 0);
});

test("usage mistakes exit with 2 and say why; help exits with 0", async (t) => {
  const unknown = await run(["createsuperuser"]);
  t.is(unknown.code, 2);
  t.true(unknown.stderr.includes(CommandErrors.UNKNOWN_COMMAND.code));

  const noEmail = await run(["create-admin"]);
  t.is(noEmail.code, 2);
  t.true(noEmail.stderr.includes(CommandErrors.INVALID_ARGUMENTS.code));

  const badField = await run(["create-admin", "--email", uniqueTestEmail(), "--field", "admin=false"]);
  t.is(badField.code, 2);

  const help = await run(["help"]);
  t.is(help.code, 0);
  t.regex(help.stdout, /create-admin --email/);
});

test("a password outside the policy fails with the auth plugin's code and changes nothing", async (t) => {
  const app = await projectApp();
  const ada = await createUser(app, { name: "Ada" });
  await app.stop();
  const { code, stderr } = await run(["create-admin", "--email", ada.email, "--password-stdin"], { stdin: "short" });
  t.is(code, 1);
  t.true(stderr.includes(AuthErrors.WEAK_PASSWORD.code), stderr);
  t.like(await me(t, ada), { admin: false });
});

test("fields the user model refuses fail with the validation codes, not a raw mongoose message", async (t) => {
  const badEmail = await run(["create-admin", "--email", "not-an-email", "--field", "name=Ada"]);
  t.is(badEmail.code, 1);
  t.regex(badEmail.stderr, /^VALIDATION_FAILED: Validation failed \(email: .+\)\n$/);

  const email = uniqueTestEmail("fields");
  const unknown = await run(["create-admin", "--email", email, "--field", "name=Ada", "--field", "nosuch=1"]);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /^VALIDATION_UNKNOWN_FIELD: .*nosuch/);

  const missing = await run(["create-admin", "--email", email]);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /^VALIDATION_FAILED: Validation failed \(name: is required\)\n$/);
  const app = await projectApp();
  t.teardown(() => app.stop());
  await app.build();
  t.is(await User.countDocuments({ email }), 0, "nothing was created");
});

test("a soft-deleted user is not brought back as an admin", async (t) => {
  const app = await projectApp();
  t.teardown(() => app.stop());
  const gone = await createUser(app, { name: "Gone" });
  await User.updateOne({ _id: gone.id }, { $set: { deleted: true } });
  const error = await t.throwsAsync(createAdminUser(app, { userModel: User, email: gone.email }));
  t.true(hasCode(error, CommandErrors.USER_DELETED));
});

test("an app without the auth plugin cannot create admins", async (t) => {
  const app = await createTestApp();
  let stderr = "";
  const code = await runCommand(app, ["create-admin", "--email", uniqueTestEmail()], {
    userModel: User,
    stderr: { write: (text: string) => (stderr += text) },
  });
  t.is(code, 1);
  t.true(stderr.includes(AppAccountsErrors.UNAVAILABLE.code));
});

function hasCode(error: unknown, entry: { code: string }): boolean {
  return (error as { code?: unknown } | undefined)?.code === entry.code;
}

// Serial (so before the other tests, which share mongoose's connection through the test database):
// this app opens its own in-memory engine.
test.serial("create-admin refuses an app on an in-memory database: the admin would be gone when the command ends", async (t) => {
  const app = new SvcApp({ env: { NODE_ENV: "test", ...testAuthEnvironment() }, handleSignals: false, logger: { debug() {}, info() {}, warn() {}, error() {} } })
    .register(authPlugin({ userModel: User, profileFields: ["name"] }))
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  let stderr = "";
  const code = await runCommand(app, ["create-admin", "--email", uniqueTestEmail("memory")], {
    userModel: User,
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
  });
  t.is(code, 1);
  t.regex(stderr, new RegExp(CommandErrors.DATABASE_IN_MEMORY.code));
  t.regex(stderr, /dbPath/);
});
