import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { RequestUser } from "../../contracts/request-user.js";
import { appAccounts } from "../app-accounts.js";
import type { SvcApp } from "../svc-app.js";
import { TestingErrors } from "./errors.js";

/** What `createUser` may be given: any user-model fields, plus the credentials. */
export interface TestUserFields {
  /** Default: a unique `user-…@example.com`. */
  email?: string;
  /** Default: a random password that satisfies the default policy. */
  password?: string;
  /** Default false. */
  admin?: boolean;
  readonly [field: string]: unknown;
}

/** A user created for a test, with the password it signs in with. */
export interface TestAccount {
  readonly id: string;
  readonly email: string;
  readonly password: string;
  /** The user as `req.user` sees it. */
  readonly user: RequestUser;
}

let created = 0;

/**
 * Creates a password user through the app's `ACCOUNTS` port (the auth plugin's own code path:
 * the user model, the password hasher, the password policy), building the app first if needed.
 * Needs `authPlugin` with the JWT provider (`APP_ACCOUNTS_UNAVAILABLE` otherwise).
 *
 * @example
 * const ada = await createUser(app, { name: "Ada" });
 * const admin = await createUser(app, { email: "root@example.com", admin: true });
 */
export async function createUser(app: SvcApp, fields: TestUserFields = {}): Promise<TestAccount> {
  const { email = uniqueTestEmail(), password = randomBytes(18).toString("base64url"), admin = false, ...rest } = fields;
  const accounts = await appAccounts(app);
  const user = await accounts.createPasswordUser({ ...rest, email, admin }, password);
  return { id: user.id, email: String(user.email ?? email), password, user };
}

/**
 * Signs `account` in through the app's real `POST /auth/login` route and returns the access
 * token, so requests made with it go through the same JWT checks as production ones. The app is
 * built if needed and served on a loopback port for the one request. A refused login throws
 * `TESTING_LOGIN_FAILED` naming the status and error code.
 *
 * @example
 * const token = await loginAs(app, await createUser(app));
 * await request(http).get("/auth/me").set(bearer(token)).expect(200);
 */
export async function loginAs(app: SvcApp, account: { readonly email: string; readonly password: string }): Promise<string> {
  const express = await app.build();
  const server = createServer(express);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    const body = (await response.json().catch(() => undefined)) as
      | { data?: { token?: string }; errors?: Array<{ code?: string }> }
      | undefined;
    const token = body?.data?.token;
    if (!response.ok || typeof token !== "string") {
      throw TestingErrors.LOGIN_FAILED(account.email, response.status, body?.errors?.[0]?.code);
    }
    return token;
  } finally {
    // fetch keeps its connection alive; close it so the server (and the test) can end now.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * The `Authorization` header for an access token, for supertest's `.set()` or fetch's `headers`.
 *
 * @example
 * await request(http).get("/todos").set(bearer(token)).expect(200);
 * await fetch(`${url}/todos`, { headers: bearer(token) });
 */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/**
 * A new email per call, unique across test processes sharing a real MongoDB.
 *
 * @example
 * await createUser(app, { email: uniqueTestEmail("admin") }); // "admin-4242-1-k3j9x2@example.com"
 */
export function uniqueTestEmail(prefix = "user"): string {
  return `${prefix}-${process.pid}-${++created}-${randomBytes(3).toString("hex")}@example.com`.toLowerCase();
}
