import test, { type ExecutionContext } from "ava";
import mongoose, { Schema } from "mongoose";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { ACCOUNTS, authPlugin, baseUserPlugin, createScryptHasher, federatedIdentityPlugin, isDisabledPlugin, PASSWORD_HASHER, type SvcApp } from "../../index.js";
import { createTestApp, createUser, stopTestDatabase } from "../../hosts/testing.js";
import { launchChromium } from "../../test/support/chromium.js";
import { ADMIN_UI_PASSWORD as PASSWORD, openAdminPage, signInAs as signIn } from "../../test/support/admin-ui-browser.js";
import { AdminTestUser, Gadget, seedRoles, testAdminOptions } from "../../test/support/admin-test-app.js";
import { adminPlugin } from "./index.js";

// The admin web UI's sign-in end to end in Chromium, with each kind of sign-in: JWT whose access
// tokens live a second or two (the UI refreshes them, once for requests made together, and lands
// on the sign-in page when the refresh is refused), and session auth (sign in, list, sign out
// ending the session on the server). The header shows the signed-in person's name. The two tests
// run side by side, each with its own app, in one browser.


let browser: Promise<Browser> | undefined;
test.before(() => {
  browser = launchChromium();
});
test.after.always(async () => {
  await (await browser)?.close();
  await stopTestDatabase();
});

async function started(t: ExecutionContext, app: SvcApp): Promise<string> {
  const running = await app.start();
  t.teardown(() => app.stop());
  return running.url!;
}

async function openAdmin(t: ExecutionContext, url: string): Promise<Page> {
  return (await openAdminPage(t, (await browser)!, url)).page;
}

/**
 * Waits (by the page's own clock) until the access token the page holds has expired: the server
 * refuses a token once the second of its `exp` has begun.
 */
async function untilTokenExpired(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      // The tests have no DOM types: the page's sessionStorage, typed as far as used.
      const token = (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem("svc-admin.token");
      if (!token) return false;
      const claims = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { exp: number };
      return Date.now() >= claims.exp * 1000 + 100;
    },
    undefined,
    { polling: 100 },
  );
}

const storedToken = (page: Page) => page.evaluate('sessionStorage.getItem("svc-admin.token")');

test("JWT: an expired access token is refreshed once for requests made together, without a sign-in page; once the sign-in is revoked, the next action lands on the sign-in page saying it has ended; the header shows the user's name", async (t) => {
  const app = (await createTestApp({ port: 0, host: "127.0.0.1", env: { TOKEN_EXPIRES_IN: "2s" } }))
    .register(authPlugin({ userModel: AdminTestUser, profileFields: ["name"] }))
    .register(adminPlugin(testAdminOptions({ scripts: { recount: { description: "Recounts the gadgets", run: async () => undefined } } })))
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  const url = await started(t, app);
  await seedRoles();
  const admin = await createUser(app, { password: PASSWORD, roles: ["full"], name: "Grace Hopper" });
  const page = await openAdmin(t, url);
  const refreshes: number[] = [];
  const expired: string[] = [];
  let configAsks = 0;
  page.on("response", (response) => {
    if (response.url().endsWith("/auth/refresh_token")) refreshes.push(response.status());
    else if (response.status() === 401) expired.push(new URL(response.url()).pathname);
    if (response.url().endsWith("/admin/config")) configAsks += 1;
  });

  await signIn(page, admin.email);
  const nav = page.getByRole("navigation", { name: "Admin" });
  await nav.getByRole("link", { name: "Scripts & tasks" }).waitFor();
  t.is(await page.getByTestId("signed-in-as").textContent(), "Grace Hopper");
  // ra-core asks for the permissions more than once after a sign-in; one request answers them.
  t.is(configAsks, 1);

  // The scripts page asks for the scripts and the tasks at once, both with the expired token.
  await untilTokenExpired(page);
  refreshes.length = 0;
  expired.length = 0;
  await nav.getByRole("link", { name: "Scripts & tasks" }).click();
  await page.getByRole("heading", { name: "recount" }).waitFor();
  await page.getByRole("heading", { name: "Recent tasks" }).waitFor();
  t.deepEqual(expired.sort(), ["/admin/scripts", "/admin/tasks"]);
  t.deepEqual(refreshes, [200]);
  t.is(await page.getByRole("button", { name: "Sign in" }).count(), 0);

  // A new password ends every sign-in at once, the unexpired access token included: the request
  // is refused as revoked (no refresh is tried: only an expired token is refreshed), and the
  // page says so.
  await app.resolve(ACCOUNTS).setPassword(admin.id, "another correct horse battery");
  refreshes.length = 0;
  await nav.getByRole("link", { name: "Version" }).click();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  t.deepEqual(refreshes, []);
  t.is(await page.getByRole("alert").textContent(), "Your sign-in has ended. Please sign in again.");
  t.is(await storedToken(page), null);

  // Signing out ends the sign-in on the server: its refresh token is refused afterwards.
  await signIn(page, admin.email, "another correct horse battery");
  await nav.getByRole("link", { name: "Version" }).waitFor();
  const refreshToken = (await page.evaluate('sessionStorage.getItem("svc-admin.refreshToken")')) as string;
  const signedOut = page.waitForResponse((response) => response.url().endsWith("/auth/logout"));
  await page.getByRole("button", { name: "Sign out" }).click();
  t.is((await signedOut).status(), 204);
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  const refused = await fetch(`${url}/auth/refresh_token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken }) });
  t.is(refused.status, 401);
});

const sessionUserSchema = new Schema(
  { name: { type: String, description: "Display name" } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
sessionUserSchema.plugin(baseUserPlugin);
sessionUserSchema.plugin(isDisabledPlugin);
sessionUserSchema.plugin(federatedIdentityPlugin);
const SessionAdminUser = mongoose.models.SessionAdminUser ?? mongoose.model("SessionAdminUser", sessionUserSchema);

/** A free loopback port: the session app must know its browser origin (a trusted one) before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("session auth: the page signs in through the session routes, lists a model, shows the user's name, and sign-out ends the session on the server", async (t) => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const app = (await createTestApp({ port, host: "127.0.0.1", env: { AUTH_PROVIDER: "session-auth" } }))
    .register(authPlugin({ userModel: SessionAdminUser, sessionAuth: { trustedOrigins: [origin] } }))
    .register(adminPlugin({ models: [{ model: Gadget as never, routePath: "/gadgets", displayName: "Gadgets", listFields: ["title", "done", "created"] }] }));
  const url = await started(t, app);
  const email = `ada-${Date.now().toString(36)}@example.com`;
  const signedUp = await fetch(`${url}/api/auth/signup/email`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD, name: "Ada Lovelace" }) });
  t.is(signedUp.status, 201);
  // Without role-based access, the admin is for admins. The name is the app's user's (session
  // sign-up gives it to better-auth's own user only), which the sign-in answer carries.
  await SessionAdminUser.updateOne({ email }, { $set: { admin: true, name: "Ada Lovelace" } });
  const title = `session-${Date.now().toString(36)}`;
  await Gadget.create({ title });

  const page = await openAdmin(t, url);
  const settings = JSON.parse((await page.locator("#svc-admin-settings").textContent())!) as { signIn: string };
  t.is(settings.signIn, "session");
  const answered = page.waitForResponse((response) => response.url().endsWith("/api/auth/signin/email"));
  await signIn(page, email);
  const token = ((await (await answered).json()) as { data: { token: string } }).data.token;
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Gadgets" }).click();
  await page.getByTestId("list-row").getByRole("link", { name: title }).waitFor();
  t.is(await page.getByTestId("signed-in-as").textContent(), "Ada Lovelace");
  const config = await fetch(`${url}/admin/config`, { headers: { authorization: `Bearer ${token}` } });
  t.is(config.status, 200);

  const signedOut = page.waitForResponse((response) => response.url().endsWith("/api/auth/signout"));
  await page.getByRole("button", { name: "Sign out" }).click();
  t.is((await signedOut).status(), 200);
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  // A plain sign-out says nothing of a sign-in having ended.
  t.is(await page.getByRole("alert").count(), 0);
  const after = await fetch(`${url}/admin/config`, { headers: { authorization: `Bearer ${token}` } });
  t.is(after.status, 401);
});
