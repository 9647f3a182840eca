// Shared set-up for the auth plugin's HTTP tests: a user model, a test app with the plugin, a
// counting fast hasher, captured logs, the provider variables and loopback-only networking.
import type { TestFn } from "ava";
import mongoose, { Schema } from "mongoose";
import nock from "nock";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import type { SvcApp, SvcAppOptions } from "../../hosts/svc-app.js";
import { createSvcLogger } from "../../plugins/logging/create-logger.js";
import { LogCapture } from "../../plugins/logging/log-capture.js";
import {
  authPlugin,
  baseUserPlugin,
  createScryptHasher,
  emailVerificationPlugin,
  federatedIdentityPlugin,
  githubUserPlugin,
  isDisabledPlugin,
  PASSWORD_HASHER,
  type AuthPluginOptions,
  type PasswordHasher,
} from "../../plugins/auth/index.js";

const userSchema = new Schema(
  {
    name: { type: String, description: "Display name" },
    bio: { type: String, description: "About the user" },
    // What isDeletedPlugin adds (the auth plugin checks the field itself).
    deleted: { type: Boolean, default: false, description: "Soft-deleted" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
userSchema.plugin(baseUserPlugin);
userSchema.plugin(isDisabledPlugin);
userSchema.plugin(githubUserPlugin);
userSchema.plugin(federatedIdentityPlugin);

/**
 * A user model like `TestUser` with `emailVerificationPlugin` too (its `emailVerifiedAt`), for the
 * mailed-link tests; compiled once per process under `name`.
 */
export function verifyingUserModel(name: string) {
  return (mongoose.models[name] as unknown as ReturnType<typeof compileVerifyingUserModel> | undefined) ?? compileVerifyingUserModel(name);
}

function compileVerifyingUserModel(name: string) {
  const schema = new Schema(
    {
      name: { type: String, description: "Display name" },
      deleted: { type: Boolean, default: false, description: "Soft-deleted" },
    },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  );
  schema.plugin(baseUserPlugin);
  schema.plugin(isDisabledPlugin);
  schema.plugin(emailVerificationPlugin);
  return mongoose.model(name, schema);
}

/**
 * What `find` finds once it finds something: for what the app is handed after the answer (a
 * mailed link, a hook's call). Fails naming `what` after about 2 s.
 *
 * @example
 * const mail = await arrival(() => mails.findLast((each) => each.email === email), `a mail to ${email}`);
 */
export async function arrival<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let tries = 0; tries < 200; tries++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${what} did not arrive`);
}

/** The test user model (one per test process). */
export const TestUser = mongoose.models.AuthTestUser ?? mongoose.model("AuthTestUser", userSchema);

export const JWT_ENV = {
  TOKEN_SECRET: "test-token-secret-0123456789abcdef0123",
  TOKEN_ISSUER: "svc-test",
  REFRESH_TOKEN_SECRET: "test-refresh-secret-0123456789abcdef01",
  SESSION_SECRET: "test-session-secret-0123456789abcdef01",
};

/** The variables that select session auth (add `GITHUB_CLIENT_ID`/`_SECRET` for its social sign-in). */
export const SESSION_ENV = {
  AUTH_PROVIDER: "session-auth",
  SESSION_AUTH_SECRET: "session-auth-secret-0123456789abcdef0123456789",
  SESSION_AUTH_URL: "http://localhost:3000",
};

/** A fast scrypt hasher that counts how often the KDF ran. */
export function countingHasher(): PasswordHasher & { verifications: number; hashes: number } {
  const inner = createScryptHasher({ cost: 2 ** 10 });
  const hasher = {
    verifications: 0,
    hashes: 0,
    async hash(password: string) {
      hasher.hashes++;
      return inner.hash(password);
    },
    async verify(password: string, stored: string) {
      hasher.verifications++;
      return inner.verify(password, stored);
    },
    needsRehash: (stored: string) => inner.needsRehash(stored),
  };
  return hasher;
}

export interface AuthTestApp {
  app: SvcApp;
  http: import("express").Express;
  hasher: ReturnType<typeof countingHasher>;
  logs: LogCapture;
}

/**
 * Builds a started test app with the auth plugin.
 *
 * @example
 * const { http } = await authTestApp(t, { profileFields: ["name"] });
 */
export async function authTestApp(
  t: { teardown: (fn: () => Promise<void> | void) => void },
  options: Partial<AuthPluginOptions> = {},
  env: Record<string, string> = {},
  configure?: (app: SvcApp) => void,
  appOptions: Omit<SvcAppOptions, "env" | "logger"> = {},
): Promise<AuthTestApp> {
  const logs = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [logs] });
  const hasher = countingHasher();
  const app = (await createTestApp({ ...appOptions, env: { ...JWT_ENV, ...env }, logger }))
    .register(authPlugin({ userModel: TestUser, ...options }))
    .override(PASSWORD_HASHER, { useValue: hasher });
  configure?.(app);
  const http = await app.build();
  t.teardown(() => app.stop());
  return { app, http, hasher, logs };
}

/**
 * One auth test app for a whole test file, with its OpenAPI document (to check answers against):
 * stopped after the file's tests, and the test database with it.
 *
 * @example
 * const shared = sharedAuthTestApp(test, { passwordPolicy: { minLength: 10 } });
 * const { http, document } = await shared;
 */
export function sharedAuthTestApp(test: TestFn, options: Partial<AuthPluginOptions> = {}): Promise<AuthTestApp & { document: { paths: Record<string, Record<string, unknown>> } }> {
  let stopApp: (() => Promise<void> | void) | undefined;
  test.after.always(async () => {
    await stopApp?.();
    await stopTestDatabase();
  });
  return (async () => {
    const built = await authTestApp({ teardown: (fn) => void (stopApp = fn) }, options);
    const document = (await request(built.http).get("/openapi.json").expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    return { ...built, document };
  })();
}

/** The password `signUpThroughApi` gives its users. */
export const TEST_USER_PASSWORD = "correct horse battery staple";

/**
 * Signs a new user up through `POST /auth/signup` (expects 201): their email, tokens and id.
 *
 * @example
 * const { email, token, refreshToken, userId } = await signUpThroughApi(http, "alice");
 */
export async function signUpThroughApi(http: Parameters<typeof request>[0], prefix = "user"): Promise<{ email: string; token: string; refreshToken: string; userId: string }> {
  const email = uniqueEmail(prefix);
  const response = await request(http).post("/auth/signup").send({ email, password: TEST_USER_PASSWORD }).expect(201);
  return { email, ...(response.body.data as { token: string; refreshToken: string; userId: string }) };
}

let counter = 0;
/** A unique email per call (tests in a file share the database). */
export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/**
 * The `code` of an error response's first error.
 *
 * @example
 * t.is(errorCode(await request(http).get("/auth/me").expect(401)), HttpErrors.UNAUTHENTICATED.code);
 */
export function errorCode(response: { body?: { errors?: Array<{ code?: string }> } }): string | undefined {
  return response.body?.errors?.[0]?.code;
}

/**
 * For a test file whose app calls out (GitHub, better-auth's providers): outbound HTTP is refused
 * except to loopback, so only nock interceptors answer; afterwards they are cleared.
 *
 * @example
 * loopbackOnlyNetwork(test);
 * nock("https://github.com").post("/login/oauth/access_token").reply(200, { access_token: "gho_x" });
 */
export function loopbackOnlyNetwork(test: TestFn): void {
  test.before(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  test.after.always(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
}
