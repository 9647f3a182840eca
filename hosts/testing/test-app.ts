import { randomBytes } from "node:crypto";
import type { Environment } from "../../kernel/environment.js";
import { SvcApp, type SvcAppOptions } from "../svc-app.js";
import { startTestDatabase } from "./test-database.js";

/** The auth variables `createTestApp` fills in (JWT and session auth). */
const AUTH_VARIABLES = ["TOKEN_SECRET", "TOKEN_ISSUER", "REFRESH_TOKEN_SECRET", "SESSION_SECRET", "SESSION_AUTH_SECRET", "SESSION_AUTH_URL"];

let authEnvironment: Readonly<Record<string, string>> | undefined;

/**
 * Auth variables for tests: random secrets (one set per test process, so a token survives
 * rebuilding an app within the process, and long enough for `NODE_ENV=production`), the issuer
 * `svc-test`, and the session-auth variables. `createTestApp` uses them; pass them yourself to
 * apps you build another way.
 *
 * @example
 * const server = await setupServer({ env: { NODE_ENV: "test", ...testAuthEnvironment() }, skipListen: true, ... });
 */
export function testAuthEnvironment(): Readonly<Record<string, string>> {
  const random = () => randomBytes(48).toString("base64url");
  authEnvironment ??= Object.freeze({
    TOKEN_SECRET: random(),
    TOKEN_ISSUER: "svc-test",
    REFRESH_TOKEN_SECRET: random(),
    SESSION_SECRET: random(),
    SESSION_AUTH_SECRET: random(),
    SESSION_AUTH_URL: "http://localhost:3000",
  });
  return authEnvironment;
}

/**
 * The options of a test app: the process's test database (see `startTestDatabase`),
 * `NODE_ENV=test`, no signal handlers, and the auth secrets of `testAuthEnvironment()` — so
 * registering `authPlugin` just works. A test whose `env` sets any auth variable (`TOKEN_SECRET`,
 * `TOKEN_ISSUER`, `REFRESH_TOKEN_SECRET`, `SESSION_SECRET`, `SESSION_AUTH_SECRET`,
 * `SESSION_AUTH_URL`) gets none filled in: it is testing auth configuration and sees exactly its
 * own. For a project whose app factory takes options; `createTestApp` builds the app itself.
 *
 * @example
 * const app = createApp(await testAppOptions()); // the project's own factory
 * t.teardown(() => app.stop());
 */
export async function testAppOptions(options: SvcAppOptions = {}): Promise<SvcAppOptions> {
  const database = await startTestDatabase();
  const env: Environment = options.env ?? {};
  const configuresAuth = AUTH_VARIABLES.some((name) => env[name] !== undefined);
  return {
    handleSignals: false,
    ...options,
    env: { NODE_ENV: "test", ...(configuresAuth ? {} : testAuthEnvironment()), ...env },
    database: options.database === false ? false : { uri: database.uri, dbName: database.dbName, ...options.database },
  };
}

/**
 * An `SvcApp` with `testAppOptions(options)`. Build a new app (and new plugin instances) per
 * test; stop it in a teardown.
 *
 * @example
 * const app = (await createTestApp()).register(authPlugin({ userModel: User })).register(todoRouter());
 * const http = await app.build();
 * t.teardown(() => app.stop());
 * await request(http).get("/todos").expect(401);
 */
export async function createTestApp(options: SvcAppOptions = {}): Promise<SvcApp> {
  return new SvcApp(await testAppOptions(options));
}
