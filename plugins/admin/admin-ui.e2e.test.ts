import test, { type ExecutionContext } from "ava";
import { mkdir } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { createScryptHasher, PASSWORD_HASHER, type SvcApp } from "../../index.js";
import { createTestApp, createUser, stopTestDatabase, type TestAccount } from "../../hosts/testing.js";
import { authPlugin } from "../auth/index.js";
import { assertAccessible as accessible, launchChromium } from "../../test/support/chromium.js";
import { ADMIN_UI_PASSWORD as PASSWORD, openAdminPage, signInAs as signIn, type AdminPage } from "../../test/support/admin-ui-browser.js";
import { AdminTestUser, Gadget, seedRoles, testAdminOptions } from "../../test/support/admin-test-app.js";
import { adminPlugin } from "./index.js";

// The admin web UI (plugins/admin/ui/, ra-core) end to end in Chromium: the app serves the page
// at /admin with its strict CSP, each browser context is one person signed in. Serial: one app and
// one browser for the file. Screenshots (1280 and 390 px wide) go to .svc/artefacts/admin-ui/.

const ARTEFACTS = path.resolve(".svc/artefacts/admin-ui");

interface Shared {
  readonly url: string;
  readonly app: SvcApp;
  readonly browser: Browser;
}

let stop: (() => Promise<void>) | undefined;
const shared: Promise<Shared> = (async () => {
  const app = (await createTestApp({ port: 0, host: "127.0.0.1" }))
    .register(authPlugin({ userModel: AdminTestUser, profileFields: ["name"] }))
    .register(
      adminPlugin(
        testAdminOptions({
          models: [
            ...testAdminOptions().models,
            { model: Gadget as never, routePath: "/gadgets", displayName: "Gadgets", listFields: ["title", "done", "status", "tags", "created"] },
          ],
          scripts: {
            recount: {
              description: "Recounts the gadgets",
              run: async ({ log }) => {
                log("shard a done");
                await new Promise((resolve) => setTimeout(resolve, 300));
                log("shard b done");
              },
            },
          },
          ui: { appName: "Gadget shop" },
        }),
      ),
    )
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  const running = await app.start();
  const browser = await launchChromium();
  await Promise.all([seedRoles(), mkdir(ARTEFACTS, { recursive: true })]);
  stop = async () => {
    await browser.close();
    await app.stop();
  };
  return { url: running.url!, app, browser };
})();
test.after.always(async () => {
  await stop?.();
  await stopTestDatabase();
});

const user = async (fields: { roles?: string[]; admin?: boolean } = {}): Promise<TestAccount> => createUser((await shared).app, { password: PASSWORD, roles: fields.roles ?? [], admin: fields.admin ?? false });

/** A person: their own browser context on the admin page, failing the test on page errors and CSP refusals. */
async function openAdmin(t: ExecutionContext, width = 1280): Promise<AdminPage> {
  const { browser, url } = await shared;
  return openAdminPage(t, browser, url, width);
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTEFACTS, `${name}.png`), fullPage: true });
}

/** Goes to a route of the UI (hash routing: the server only ever sees /admin). */
async function goto(page: Page, route: string): Promise<void> {
  const { url } = await shared;
  await page.goto(`${url}/admin#${route}`);
}

test.serial("sign-in: a wrong password is an alert, the right one opens the admin; the nav lists the models and tools; axe finds nothing serious", async (t) => {
  const admin = await user({ roles: ["full"] });
  const { page, problems } = await openAdmin(t);
  await page.getByRole("heading", { name: /Gadget shop/ }).waitFor();
  t.is(await page.getByLabel("Email").getAttribute("autocomplete"), "email");
  t.is(await page.getByLabel("Password").getAttribute("autocomplete"), "current-password");
  await accessible(t, page, "the sign-in page");

  await signIn(page, admin.email, "not the password");
  const alert = page.getByRole("alert");
  await alert.waitFor();
  t.regex((await alert.textContent()) ?? "", /\S/);
  await screenshot(page, "00-sign-in-refused");

  await signIn(page, admin.email);
  const nav = page.getByRole("navigation", { name: "Admin" });
  await nav.getByRole("link", { name: "Gadgets" }).waitFor();
  t.deepEqual(await nav.getByRole("link").allTextContents(), ["Users", "Gadgets", "Audit log", "Scripts & tasks", "Roles", "Version", "Configuration"]);
  t.is(await page.getByTestId("signed-in-as").textContent(), admin.email);
  t.deepEqual(problems, []);
});

test.serial("list: search, sort by a column, pages of 25; axe finds nothing serious", async (t) => {
  const admin = await user({ roles: ["full"] });
  const prefix = `paged-${Date.now().toString(36)}`;
  await Gadget.create(Array.from({ length: 30 }, (_, index) => ({ title: `${prefix} ${String(index).padStart(2, "0")}`, done: index % 2 === 0 })));
  // One more that the search leaves out, so "30 records" below proves the (debounced) search is
  // applied: were it applied late, it would send the list back to page 1 after "Next page".
  await Gadget.create({ title: `unlisted-${Date.now().toString(36)}` });
  const { page, problems } = await openAdmin(t);
  await signIn(page, admin.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Gadgets" }).click();
  await page.getByRole("heading", { name: "Gadgets", level: 1 }).waitFor();

  await page.getByLabel("Search gadgets").fill(prefix);
  const status = page.getByTestId("page-status");
  await status.filter({ hasText: /^Page 1 of 2 · 30 records$/ }).waitFor();
  t.is(await page.getByTestId("list-row").count(), 25);
  // Default sort: newest first, which the header says.
  t.is(await page.getByRole("columnheader", { name: "Created" }).getAttribute("aria-sort"), "descending");

  await page.getByRole("button", { name: "Title" }).click();
  await page.getByRole("columnheader", { name: "Title" }).and(page.locator('[aria-sort="ascending"]')).waitFor();
  await page.getByTestId("list-row").first().getByRole("link", { name: `${prefix} 00` }).waitFor();
  await page.getByRole("button", { name: "Title" }).click();
  await page.getByTestId("list-row").first().getByRole("link", { name: `${prefix} 29` }).waitFor();
  t.is(await page.getByRole("columnheader", { name: "Title" }).getAttribute("aria-sort"), "descending");

  await page.getByRole("button", { name: "Next page" }).click();
  await status.filter({ hasText: "Page 2 of 2" }).waitFor();
  // Page 2 of title descending: 04 (done, as every even one) to 00.
  const first = page.getByTestId("list-row").first();
  await first.getByRole("link", { name: `${prefix} 04` }).waitFor();
  t.is(await page.getByTestId("list-row").count(), 5);
  t.deepEqual(await first.locator("td").nth(2).locator(".visually-hidden").allTextContents(), ["yes"]);
  await accessible(t, page, "a list");
  await screenshot(page, "01-list");
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "01-list-phone");
  t.deepEqual(problems, []);
});

test.serial("create, edit (only the changed field is sent), a server 400 on its field, a too-long title caught before any request, delete; axe finds nothing serious on a record page", async (t) => {
  const admin = await user({ roles: ["full"] });
  const title = `created-${Date.now().toString(36)}`;
  const { page, problems } = await openAdmin(t);
  await signIn(page, admin.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Gadgets" }).click();
  await page.getByRole("link", { name: "Create Gadgets" }).click();
  // The form's own check, said on the field in words (not ra-core's wrapped translation key).
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByLabel("Title").and(page.locator('[aria-invalid="true"]')).waitFor();
  const titleError = (await page.getByLabel("Title").getAttribute("aria-describedby"))!.split(" ").at(-1)!;
  t.is(await page.locator(`[id="${titleError}"]`).textContent(), "Required");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Status").selectOption("used");
  await page.getByLabel("Tags").fill("red\nblue");
  const created = page.waitForRequest((request) => request.method() === "POST" && request.url().endsWith("/admin/gadgets"));
  await page.getByRole("button", { name: "Create" }).click();
  t.deepEqual((await created).postDataJSON(), { title, done: false, status: "used", tags: ["red", "blue"] });

  // The record page: read-only details, the form.
  await page.getByRole("heading", { name: title, level: 1 }).waitFor();
  const stored = await Gadget.findOne({ title }).lean();
  t.deepEqual(stored?.tags, ["red", "blue"]);
  // Read-only fields (timestamps, the owner) are shown, never inputs: the server would refuse them.
  t.is(await page.locator('[name="created"], [name="ownerId"], [name="_id"]').count(), 0);
  await page.getByRole("term").filter({ hasText: "Created" }).waitFor();

  await page.getByLabel("Note").fill("fragile");
  const patched = page.waitForRequest((request) => request.method() === "PATCH");
  await page.getByRole("button", { name: "Save" }).click();
  t.deepEqual((await patched).postDataJSON(), { note: "fragile" });
  await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
  t.is((await Gadget.findOne({ title }).lean())?.note, "fragile");

  // A title stored before the model had its limit (written around the validators). The form holds
  // only what is typed to the limits, so it sends just the note; the server refuses the record, and
  // its 400 lands on the title (and in the form's alert).
  const legacy = "y".repeat(230);
  await Gadget.collection.updateOne({ title }, { $set: { title: legacy } });
  await page.reload();
  const titleInput = page.getByLabel("Title");
  await page.getByRole("heading", { name: legacy.slice(0, 79), level: 1 }).waitFor();
  t.is(await titleInput.inputValue(), legacy);
  // A title of one long word wraps in the heading rather than widening the page.
  t.true(await page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"));
  t.is(await titleInput.getAttribute("maxlength"), "200");
  const [hintId] = (await titleInput.getAttribute("aria-describedby"))!.split(" ");
  t.is(await page.locator(`[id="${hintId}"]`).textContent(), "What it is. Up to 200 characters.");
  const fieldError = async () => {
    const id = (await titleInput.getAttribute("aria-describedby"))!.split(" ").at(-1)!;
    return (await page.locator(`[id="${id}"]`).textContent()) ?? "";
  };
  await page.getByLabel("Note").fill("very fragile");
  const refused = page.waitForResponse((response) => response.request().method() === "PATCH");
  await page.getByRole("button", { name: "Save" }).click();
  t.deepEqual((await refused).request().postDataJSON(), { note: "very fragile" });
  t.is((await refused).status(), 400);
  await page.getByTestId("form-error").waitFor();
  t.is(await titleInput.getAttribute("aria-invalid"), "true");
  t.regex(await fieldError(), /200/);

  // Typed, the title is held to the limit before anything is sent: shortened but still too long,
  // Save sends nothing and says why on the field, as the server would.
  const patches: unknown[] = [];
  page.on("request", (request) => {
    if (request.method() === "PATCH") patches.push(request.postDataJSON());
  });
  await titleInput.press("End");
  await titleInput.press("Backspace");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText("Too long: up to 200 characters (this has 229)").waitFor();
  t.is(await titleInput.getAttribute("aria-invalid"), "true");
  t.is(await fieldError(), "Too long: up to 200 characters (this has 229)");
  await accessible(t, page, "a record page with a field error");
  await screenshot(page, "02-record-error");
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "02-record-error-phone");
  await page.setViewportSize({ width: 1280, height: 900 });
  // The browser stops typing at the limit; a title within it saves, and the refused Save sent nothing.
  await titleInput.fill("x".repeat(201));
  t.is((await titleInput.inputValue()).length, 200);
  await titleInput.fill(title);
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
  t.deepEqual(patches, [{ title, note: "very fragile" }]);

  await page.getByRole("button", { name: "Delete this record" }).click();
  await page.getByRole("button", { name: "Yes, delete it" }).click();
  // Exactly the list's heading: the record page's own h1 ("Gadgets: <title>") contains it too.
  await page.getByRole("heading", { name: "Gadgets", level: 1, exact: true }).waitFor();
  t.is(await Gadget.countDocuments({ title, deleted: { $ne: true } }), 0);
  t.deepEqual(problems, []);
});

test.serial("a create whose answer was lost, saved again, makes one record: the second save carries the same Idempotency-Key and is answered from the first", async (t) => {
  const admin = await user({ roles: ["full"] });
  const title = `lost-answer-${Date.now().toString(36)}`;
  const { page, problems } = await openAdmin(t);
  await signIn(page, admin.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Gadgets" }).click();
  await page.getByRole("link", { name: "Create Gadgets" }).click();
  await page.getByLabel("Title").fill(title);

  // The first save reaches the server, which creates the record; its answer never reaches the page.
  const keys: string[] = [];
  await page.route("**/admin/gadgets", async (route) => {
    const request = route.request();
    if (request.method() !== "POST") return route.fallback();
    keys.push(request.headers()["idempotency-key"] ?? "");
    if (keys.length > 1) return route.fallback();
    await route.fetch();
    return route.abort("connectionreset");
  });
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByText("The server cannot be reached").waitFor();
  t.is(await Gadget.countDocuments({ title }), 1);

  // Saved again: the same data with the same key, answered from the first save.
  const answer = page.waitForResponse((response) => response.request().method() === "POST" && response.url().endsWith("/admin/gadgets"));
  await page.getByRole("button", { name: "Create" }).click();
  t.is((await answer).headers()["idempotent-replayed"], "true");
  await page.getByRole("heading", { name: title, level: 1 }).waitFor();
  t.is(await Gadget.countDocuments({ title }), 1);
  t.is(keys.length, 2);
  t.regex(keys[0]!, /^[0-9a-f]{32}$/);
  t.is(keys[1], keys[0]);
  t.deepEqual(problems, []);
});

test.serial("bulk: select rows, set a field on them, then delete them after a confirmation; the results are shown", async (t) => {
  const admin = await user({ roles: ["full"] });
  const prefix = `bulk-${Date.now().toString(36)}`;
  await Gadget.create([1, 2, 3].map((n) => ({ title: `${prefix} ${n}` })));
  const { page, problems } = await openAdmin(t);
  await signIn(page, admin.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Gadgets" }).waitFor();
  await goto(page, "/Gadget");
  await page.getByLabel("Search gadgets").fill(prefix);
  await page.getByTestId("page-status").filter({ hasText: /· 3 records$/ }).waitFor();
  await page.getByTestId("list-row").filter({ hasText: `${prefix} 3` }).waitFor();
  await page.getByLabel("Select all on this page").check();
  const selection = page.getByRole("region", { name: "Selected records" });
  await selection.getByText(/^3 selected/).waitFor();

  // Set one field on all of them.
  await selection.getByLabel("Field to set").selectOption("status");
  await selection.getByLabel("New value").selectOption("used");
  const updated = page.waitForRequest((request) => request.url().endsWith("/admin/gadgets/bulk-update"));
  await selection.getByRole("button", { name: "Set on 3 records" }).click();
  t.deepEqual(((await updated).postDataJSON() as { data: unknown }).data, { status: "used" });
  await page.getByTestId("bulk-results").getByRole("heading", { name: "3 of 3 records updated" }).waitFor();
  t.is(await Gadget.countDocuments({ title: new RegExp(`^${prefix}`), status: "used" }), 3);
  await screenshot(page, "06-bulk-updated");

  await page.getByLabel("Select all on this page").check();
  await selection.getByText(/^3 selected/).waitFor();

  const deleted = page.waitForRequest((request) => request.url().endsWith("/admin/gadgets/bulk-delete"));
  await page.getByRole("button", { name: "Delete selected" }).click();
  await page.getByRole("button", { name: "Yes, delete 3", exact: true }).click();
  t.is(((await deleted).postDataJSON() as { ids: string[] }).ids.length, 3);
  await page.getByTestId("bulk-results").getByRole("heading", { name: "3 of 3 records deleted" }).waitFor();
  await page.getByText(`Nothing matches “${prefix}”.`).waitFor();
  t.is(await Gadget.countDocuments({ title: new RegExp(`^${prefix}`), deleted: { $ne: true } }), 0);
  t.deepEqual(problems, []);
});

test.serial("a support user: others' records have Save and Delete disabled with the reason; their own they can edit; a bulk delete over both is refused record by record", async (t) => {
  const support = await user({ roles: ["support"] });
  const other = await user();
  const prefix = `support-${Date.now().toString(36)}`;
  const [theirs, mine] = await Gadget.create([
    { title: `${prefix} theirs`, ownerId: other.id },
    { title: `${prefix} mine`, ownerId: support.id },
  ]);
  const { page, problems } = await openAdmin(t);
  await signIn(page, support.email);
  const nav = page.getByRole("navigation", { name: "Admin" });
  await nav.getByRole("link", { name: "Gadgets" }).waitFor();
  t.deepEqual(await nav.getByRole("link").allTextContents(), ["Users", "Gadgets"]);

  await goto(page, `/Gadget/${theirs!._id}`);
  await page.getByRole("heading", { name: `${prefix} theirs`, level: 1 }).waitFor();
  t.true(await page.getByRole("button", { name: "Save" }).isDisabled());
  t.true(await page.getByLabel("Title").isDisabled());
  t.true(await page.getByRole("button", { name: "Delete this record" }).isDisabled());
  await page.getByText("Your account may not change this record").waitFor();
  await page.getByText("Your account may not delete this record").waitFor();
  await screenshot(page, "03-support-others-record");

  await goto(page, `/Gadget/${mine!._id}`);
  await page.getByRole("heading", { name: `${prefix} mine`, level: 1 }).waitFor();
  await page.getByLabel("Done").check();
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
  t.true((await Gadget.findById(mine!._id).lean())?.done);

  await goto(page, "/Gadget");
  await page.getByLabel("Search gadgets").fill(prefix);
  await page.getByTestId("page-status").filter({ hasText: /· 2 records$/ }).waitFor();
  await page.getByTestId("list-row").filter({ hasText: `${prefix} theirs` }).waitFor();
  await page.getByLabel("Select all on this page").check();
  await page.getByRole("button", { name: "Delete selected" }).click();
  await page.getByRole("button", { name: "Yes, delete 2", exact: true }).click();
  const results = page.getByTestId("bulk-results");
  await results.getByRole("heading", { name: "Nothing was deleted: 1 of 2 records were refused" }).waitFor();
  t.regex((await results.textContent()) ?? "", new RegExp(`${theirs!._id}: not allowed`));
  t.is(await Gadget.countDocuments({ title: new RegExp(`^${prefix}`), deleted: { $ne: true } }), 2);
  t.deepEqual(problems, []);
});

test.serial("set password and end sign-ins: the policy's refusal is said on the field, a good one is set and the user signs in with it, ending their sign-ins refuses their token; support sees both controls disabled with the reason; axe finds nothing serious", async (t) => {
  const { url } = await shared;
  const [admin, support, target] = await Promise.all([user({ roles: ["full"] }), user({ roles: ["support"] }), user()]);
  const { page, problems } = await openAdmin(t);
  await signIn(page, admin.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Users" }).waitFor();
  await goto(page, `/AdminTestUser/${target.id}`);
  const input = page.getByLabel("New password");
  t.is(await input.getAttribute("autocomplete"), "new-password");
  await input.fill("short");
  await page.getByRole("button", { name: "Set password" }).click();
  await page.getByText("password must be 8 to 256 characters").waitFor();
  t.is(await input.getAttribute("aria-invalid"), "true");

  const fresh = "a fresh horse battery staple";
  await input.fill(fresh);
  await page.getByRole("button", { name: "Set password" }).click();
  await page.getByRole("status").filter({ hasText: "Their sign-ins have been ended" }).waitFor();
  t.is(await input.inputValue(), "");
  await accessible(t, page, "a user's record page");
  await screenshot(page, "04-set-password");
  const login = (password: string) => fetch(`${url}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: target.email, password }) });
  const signedIn = await login(fresh);
  t.is(signedIn.status, 200);
  t.is((await login(PASSWORD)).status, 401);

  // End all sign-ins: asked twice, then the target's token is refused; the password stays.
  const { token } = ((await signedIn.json()) as { data: { token: string } }).data;
  await page.getByRole("button", { name: "End all sign-ins" }).click();
  await page.getByRole("button", { name: "Yes, end them" }).click();
  await page.getByRole("status").filter({ hasText: "has ended" }).waitFor();
  t.is((await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
  await page.getByText("No device is signed in.").waitFor();
  t.is((await login(fresh)).status, 200);

  // One device only: a lost phone is signed out from the list; the other device goes on.
  const phone = await fetch(`${url}/auth/login`, { method: "POST", headers: { "content-type": "application/json", "user-agent": "LostPhone/1.0" }, body: JSON.stringify({ email: target.email, password: fresh }) });
  const phoneToken = ((await phone.json()) as { data: { token: string } }).data.token;
  const laptop = ((await (await login(fresh)).json()) as { data: { token: string } }).data.token;
  await page.reload();
  const phoneRow = page.getByRole("row", { name: /LostPhone\/1\.0/ });
  await phoneRow.waitFor();
  t.is(await page.getByRole("table", { name: "Sign-ins" }).getByRole("row").count(), 4, "a header row and three devices");
  await accessible(t, page, "a user's sign-ins");
  await phoneRow.getByRole("button", { name: "Sign out" }).click();
  await phoneRow.getByRole("button", { name: "Yes, sign out" }).click();
  await page.getByRole("status").filter({ hasText: "is signed out on LostPhone/1.0" }).waitFor();
  await phoneRow.waitFor({ state: "detached" });
  t.is((await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${phoneToken}` } })).status, 401);
  t.is((await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${laptop}` } })).status, 200);

  // writeOwned is not enough, even for one's own record.
  const other = await openAdmin(t);
  await signIn(other.page, support.email);
  await other.page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Users" }).waitFor();
  await goto(other.page, `/AdminTestUser/${support.id}`);
  t.true(await other.page.getByRole("button", { name: "Set password" }).isDisabled());
  await other.page.getByText("Your account may not set passwords of users").waitFor();
  t.true(await other.page.getByRole("button", { name: "End all sign-ins" }).isDisabled());
  await other.page.getByText("Your account may not end sign-ins of users").waitFor();
  t.deepEqual([...problems, ...other.problems], []);
});

test.serial("change password: the person's own, from the header; a wrong current one and a mismatch are said on their fields; afterwards this tab goes on and the old password is refused; axe finds nothing serious", async (t) => {
  const { url } = await shared;
  const me = await user({ roles: ["support"] });
  const { page, problems } = await openAdmin(t);
  await signIn(page, me.email);
  await page.getByRole("link", { name: "Change password" }).click();
  await page.getByRole("heading", { name: "Change password" }).waitFor();
  t.is(await page.getByLabel("Current password").getAttribute("autocomplete"), "current-password");
  const fresh = "my own fresh horse battery";
  const fill = async (current: string, next: string, again: string) => {
    await page.getByLabel("Current password").fill(current);
    await page.getByLabel("New password", { exact: true }).fill(next);
    await page.getByLabel("New password, again").fill(again);
    await page.getByRole("button", { name: "Change password" }).click();
  };

  await fill(PASSWORD, fresh, "something else entirely");
  await page.getByText("The two new passwords differ").waitFor();
  t.is(await page.getByLabel("New password, again").getAttribute("aria-invalid"), "true");
  await fill("not my password", fresh, fresh);
  await page.getByText("The current password is not correct").waitFor();
  t.is(await page.getByLabel("Current password").getAttribute("aria-invalid"), "true");
  t.is(await page.getByLabel("Current password").inputValue(), "", "passwords are cleared once sent");
  await accessible(t, page, "the change-password page with errors");

  await fill(PASSWORD, fresh, fresh);
  await page.getByRole("status").filter({ hasText: "Password changed" }).waitFor();
  await screenshot(page, "04-change-password");
  // This tab is on the new sign-in: it still lists records.
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Gadgets" }).click();
  await page.getByTestId("list-row").first().waitFor();
  t.is(await page.getByRole("button", { name: "Sign in" }).count(), 0);
  const login = (password: string) => fetch(`${url}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: me.email, password }) });
  t.is((await login(PASSWORD)).status, 401);
  t.is((await login(fresh)).status, 200);
  t.deepEqual(problems, []);
});

test.serial("a plain user is told their account cannot open the admin, and can sign out", async (t) => {
  const plain = await user();
  const { page, problems } = await openAdmin(t);
  await signIn(page, plain.email);
  await page.getByRole("heading", { name: "Your account cannot open the admin" }).waitFor();
  t.is(await page.getByRole("navigation", { name: "Admin" }).count(), 0);
  t.is(await page.getByRole("link", { name: "Change password" }).count(), 0);
  await accessible(t, page, "the refusal page");
  await screenshot(page, "04-denied");
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  t.deepEqual(problems, []);
});

test.serial("scripts: run one, its task page follows the log until it succeeds; axe finds nothing serious on a tool page", async (t) => {
  const admin = await user({ roles: ["full"] });
  const { page, problems } = await openAdmin(t);
  await signIn(page, admin.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Scripts & tasks" }).click();
  await page.getByRole("heading", { name: "recount" }).waitFor();
  await page.getByRole("button", { name: "Run recount" }).click();
  await page.getByRole("heading", { name: "Task: recount" }).waitFor();
  await page.getByTestId("task-status").filter({ hasText: "succeeded" }).waitFor();
  t.deepEqual(await page.getByTestId("task-log").getByRole("listitem").allTextContents(), ["shard a done", "shard b done"]);
  await accessible(t, page, "a task page");
  await screenshot(page, "05-task");

  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Version" }).click();
  await page.getByText("Framework").waitFor();
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Configuration" }).click();
  await page.getByRole("heading", { name: "Environment variables" }).waitFor();
  t.true((await page.getByRole("row", { name: /^TOKEN_SECRET/ }).textContent())?.includes("[REDACTED]"));
  await accessible(t, page, "the configuration page");
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "05-configuration-phone");
  t.deepEqual(problems, []);
});

test.serial("behind a proxy that serves the app under /acme: the page, its files and every request it makes go through the prefix", async (t) => {
  const { url, browser } = await shared;
  const admin = await user({ roles: ["full"] });
  const upstream = new URL(url);
  const forwarded: string[] = [];
  // A reverse proxy that strips its prefix, as many deployments put an app under a path.
  const proxy = createServer((req, res) => {
    if (!req.url?.startsWith("/acme/")) return void res.writeHead(404).end();
    const path = req.url.slice("/acme".length);
    forwarded.push(`${req.method} ${path}`);
    const onward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    onward.on("error", () => res.writeHead(502).end());
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();

  await page.goto(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/acme/admin`);
  t.true(page.url().endsWith("/acme/admin/"));
  await signIn(page, admin.email);
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Gadgets" }).click();
  await page.getByRole("heading", { name: "Gadgets" }).waitFor();
  await page.getByRole("table").waitFor();
  for (const request of ["GET /admin/", "GET /admin/ui/main.js", "POST /auth/login", "GET /admin/config"]) t.true(forwarded.includes(request), `${request} in ${forwarded.join(", ")}`);
  t.true(forwarded.some((request) => request.startsWith("GET /admin/gadgets?")));
});
