import test, { type ExecutionContext } from "ava";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { createScryptHasher, HTTP_ROUTER, PASSWORD_HASHER, requireUser, type SvcApp, type SvcPlugin } from "../../index.js";
import { createTestApp, createUser, stopTestDatabase, type TestAccount } from "../../hosts/testing.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { authPlugin } from "../auth/index.js";
import { assertAccessible as accessible, launchChromium } from "../../test/support/chromium.js";
import { ADMIN_UI_PASSWORD as PASSWORD, openAdminPage, signInAs } from "../../test/support/admin-ui-browser.js";
import { AdminTestUser, seedRoles, testAdminOptions } from "../../test/support/admin-test-app.js";
import { ADMIN_PERMISSIONS, adminPlugin, roleModel } from "./index.js";

// An app's own admin screens (ui.screenScripts) end to end in Chromium: the app serves its screen
// scripts and the route a screen calls from a plugin of its own, as an app would; the admin page
// keeps its strict CSP. One app and one browser for the file.

const ARTEFACTS = path.resolve(".svc/artefacts/admin-ui");

/** The app's screen scripts, plain JS as an app would write them (no build step). */
const SCRIPTS: Record<string, string> = {
  "reports.js": `
    const { svcAdmin } = globalThis;
    svcAdmin.registerScreen("reports", {
      mount(element, context) {
        const summary = document.createElement("p");
        summary.dataset.testid = "summary";
        summary.textContent = "Loading the summary…";
        const refused = document.createElement("p");
        refused.dataset.testid = "refused";
        element.append(summary, refused);
        let left = false;
        context.request("/reports/summary", { query: { period: "week" } }).then((body) => {
          if (!left) summary.textContent = "Open " + body.data.open + ", closed " + body.data.closed + " (" + body.data.period + ") for " + context.user.email + " on " + context.screen.displayName + " under " + context.basePath;
        }, (error) => { summary.textContent = "Failed: " + error.message; });
        context.request("/reports/locked", { method: "POST", body: { all: true } }).catch((error) => {
          if (!left) refused.textContent = "Refused: " + error.status + " " + error.code + " " + error.message;
        });
        window.reportsMounted = (window.reportsMounted ?? 0) + 1;
        return () => {
          left = true;
          window.reportsLeft = (window.reportsLeft ?? 0) + 1;
        };
      },
    });
    // Registered, but no config lists it: nobody may see it.
    svcAdmin.registerScreen("hidden", { mount(element) { element.textContent = "hidden content"; } });
  `,
  // A second registration of a name: the first one stays.
  "again.js": `globalThis.svcAdmin.registerScreen("reports", { mount(element) { element.textContent = "impostor"; } });`,
  "broken.js": `throw new Error("broken on purpose");`,
};

/** The app's plugin: its screen scripts and the routes they call, authenticated like any other. */
const reportsPlugin: SvcPlugin = {
  name: "reports",
  dependsOn: ["admin"],
  async start(ctx) {
    const http = ctx.resolve(HTTP_ROUTER);
    const permissions = ctx.resolve(ADMIN_PERMISSIONS);
    http.get("/admin-screens/:file", (req, res) => {
      const script = SCRIPTS[req.params.file as string];
      if (script === undefined) throw HttpErrors.NOT_FOUND({ detail: "No such screen script" });
      res.type("text/javascript").send(script);
    });
    http.get("/reports/summary", permissions.require("reports:read"), (req, res) => {
      res.json({ data: { open: 3, closed: 5, period: req.query.period } });
    });
    http.post("/reports/locked", (req) => {
      requireUser(req);
      throw HttpErrors.FORBIDDEN({ detail: "Reports are locked this week" });
    });
  },
};

interface Shared {
  readonly url: string;
  readonly app: SvcApp;
  readonly browser: Browser;
}

let stop: (() => Promise<void>) | undefined;
const shared: Promise<Shared> = (async () => {
  const app = (await createTestApp({ port: 0, host: "127.0.0.1" }))
    .register(authPlugin({ userModel: AdminTestUser, profileFields: ["name"] }))
    .register(reportsPlugin)
    .register(
      adminPlugin(
        testAdminOptions({
          customScreens: [
            { name: "reports", displayName: "Reports", adminAccess: { resource: "reports", action: "read" } },
            { name: "billing", displayName: "Billing", adminAccess: { resource: "reports", action: "read" } },
          ],
          ui: { appName: "Gadget shop", screenScripts: ["/admin-screens/reports.js", "/admin-screens/missing.js", "/admin-screens/broken.js", "/admin-screens/again.js"] },
        }),
      ),
    )
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  const running = await app.start();
  const browser = await launchChromium();
  stop = async () => {
    await browser.close();
    await app.stop();
  };
  await Promise.all([
    seedRoles(),
    roleModel().updateOne({ name: "reports-viewer" }, { $set: { permissions: ["admin:access", "adminAdminTestUser:read", "reports:read"] } }, { upsert: true }),
    mkdir(ARTEFACTS, { recursive: true }),
  ]);
  return { url: running.url!, app, browser };
})();
test.after.always(async () => {
  await stop?.();
  await stopTestDatabase();
});

const user = async (roles: string[]): Promise<TestAccount> => createUser((await shared).app, { password: PASSWORD, roles, admin: false });

/** A person signed in to the admin in their own browser context; page errors and CSP refusals are collected. */
async function signedIn(t: ExecutionContext, account: TestAccount): Promise<{ page: Page; problems: string[] }> {
  const { browser, url } = await shared;
  const { page, problems } = await openAdminPage(t, browser, url);
  await signInAs(page, account.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Users" }).waitFor();
  return { page, problems };
}

test.serial("a screen script's screen: in the nav for its permission, mounted with the signed-in client, cleaned up on leaving; failed scripts are said on the unregistered screen's page, the admin still works", async (t) => {
  const viewer = await user(["reports-viewer"]);
  const { url } = await shared;
  const { page, problems } = await signedIn(t, viewer);
  const nav = page.getByRole("navigation", { name: "Admin" });
  t.deepEqual(await nav.getByRole("link").allTextContents(), ["Users", "Reports", "Billing"]);

  await nav.getByRole("link", { name: "Reports" }).click();
  await page.getByRole("heading", { name: "Reports", level: 1 }).waitFor();
  // The app's route, called through context.request with the admin's token: the script renders its data.
  const summary = page.getByTestId("summary");
  await summary.filter({ hasText: /^Open/ }).waitFor();
  t.is(await summary.textContent(), `Open 3, closed 5 (week) for ${viewer.email} on Reports under /admin`);
  // An error answer reaches the script as {status, code, message}; the admin stays signed in.
  await page.getByTestId("refused").filter({ hasText: /\S/ }).waitFor();
  t.is(await page.getByTestId("refused").textContent(), "Refused: 403 HTTP_FORBIDDEN Reports are locked this week");
  // The first registration stays; the second is said on the screen's page.
  t.false((await page.getByTestId("custom-screen-content").textContent())!.includes("impostor"));
  t.regex((await page.getByTestId("screen-problems").textContent())!, /Screen "reports" was registered twice \(in \/admin-screens\/again\.js\); the first registration \(in \/admin-screens\/reports\.js\) is kept/);
  t.is(await page.title(), "Reports · Gadget shop admin");
  await accessible(t, page, "a custom screen");
  await page.screenshot({ path: path.join(ARTEFACTS, "07-custom-screen.png"), fullPage: true });
  t.deepEqual(await page.evaluate(() => [(globalThis as { reportsMounted?: number }).reportsMounted, (globalThis as { reportsLeft?: number }).reportsLeft]), [1, undefined]);

  // Leaving for another screen calls the cleanup; this one no script registered.
  await nav.getByRole("link", { name: "Billing" }).click();
  await page.getByRole("heading", { name: "Billing", level: 1 }).waitFor();
  t.deepEqual(await page.evaluate(() => [(globalThis as { reportsMounted?: number }).reportsMounted, (globalThis as { reportsLeft?: number }).reportsLeft]), [1, 1]);
  t.is(await page.getByTestId("custom-screen-content").count(), 0);
  t.regex((await page.getByRole("main").textContent())!, /This screen is provided by the app \(billing\), but none of its screen scripts registered it\..*svcAdmin\.registerScreen\("billing", screen\)/);
  const failures = (await page.getByTestId("screen-problems").getByRole("listitem").allTextContents()).join("\n");
  t.regex(failures, /\/admin-screens\/missing\.js could not be loaded/);
  t.regex(failures, /\/admin-screens\/broken\.js could not be loaded: broken on purpose/);
  t.false(failures.includes("registered twice"), "another screen's problem is said on its own page");
  await accessible(t, page, "an unregistered custom screen");
  await page.screenshot({ path: path.join(ARTEFACTS, "07-custom-screen-unregistered.png"), fullPage: true });

  // A screen a script registered but the config does not give this caller is never shown.
  await page.goto(`${url}/admin#/screens/hidden`);
  await page.getByRole("heading", { name: "Not found" }).waitFor();
  t.false((await page.content()).includes("hidden content"));

  // The rest of the admin works.
  await nav.getByRole("link", { name: "Users" }).click();
  await page.getByRole("heading", { name: "Users", level: 1 }).waitFor();
  await page.getByTestId("list-row").first().waitFor();
  t.deepEqual(problems, []);
});

test.serial("a user without the screen's permission does not see it: not in the nav, not at its address, never mounted", async (t) => {
  const support = await user(["support"]);
  const { url } = await shared;
  const { page, problems } = await signedIn(t, support);
  const nav = page.getByRole("navigation", { name: "Admin" });
  t.deepEqual(await nav.getByRole("link").allTextContents(), ["Users"]);
  t.is(await nav.getByRole("heading", { name: "Screens" }).count(), 0);
  await page.goto(`${url}/admin#/screens/reports`);
  await page.getByRole("heading", { name: "Not found" }).waitFor();
  t.is(await page.evaluate(() => (globalThis as { reportsMounted?: number }).reportsMounted), undefined);
  t.deepEqual(problems, []);
});
