import test from "ava";
import type { Page, WebSocket } from "playwright-core";
import { stopTestDatabase, uniqueTestEmail } from "../../hosts/testing.js";
import { Todo } from "../demo/todo.js";
import { User } from "../demo/user.js";
import { assertAccessible as accessible } from "../../test/support/chromium.js";
import { addTodo, INDEXED_DB_DUMP, mailedLink, mailedNotice, openDevice, screenshot, signInOn, startWebDemo, statusShows, titlesOn, todoRow } from "./test-support/web-demo-harness.js";

// The web demo end to end in Chromium (playwright-core): the demo app serves /app, each browser
// context is one device with its own IndexedDB. Serial: one app and one browser for the file.

let stop: (() => Promise<void>) | undefined;
const shared = startWebDemo({ teardown: () => undefined }).then((started) => ((stop = started.stop), started));
test.after.always(async () => {
  await stop?.();
  await stopTestDatabase();
});

type Device = Awaited<ReturnType<typeof openDevice>>;

/** Takes a device off (or back on) the network, with the app's own toggle (which also drops the socket). */
async function setDeviceOffline(device: Device, offline: boolean): Promise<void> {
  await device.context.setOffline(offline);
  await device.page.getByTestId("offline-toggle").click();
}

/** Renames a todo through its row's Edit → Save. */
async function rename(page: Page, from: string, to: string): Promise<void> {
  await todoRow(page, from).getByTestId("edit").click();
  await page.getByTestId("edit-title").fill(to);
  await page.getByTestId("save").click();
}


test.serial("the sign-in page says what to try and where the API is, its inputs are labelled and autocompleted, a refusal is an alert; axe finds nothing serious", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  await page.getByTestId("sign-in").waitFor();
  t.regex((await page.getByTestId("intro").textContent()) ?? "", /second tab/);
  t.is(await page.getByRole("link", { name: "API docs" }).getAttribute("href"), "/docs");
  t.is(await page.getByLabel("Email").getAttribute("autocomplete"), "email");
  t.is(await page.getByLabel("Password").getAttribute("autocomplete"), "current-password");
  await accessible(t, page, "the sign-in page");

  await page.getByLabel("Email").fill(uniqueTestEmail("nobody"));
  await page.getByLabel("Password").fill("not the password");
  await page.getByTestId("login").click();
  const alert = page.getByRole("alert");
  await alert.waitFor();
  t.is(await alert.getAttribute("data-testid"), "error");
  await accessible(t, page, "the sign-in page with an error");
  await screenshot(page, "00-sign-in-refused");
});

test.serial("sign up, then create, edit, complete and delete todos; the server has them; the status bar follows", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  const email = uniqueTestEmail("web");
  await signInOn(page, "signup", email);
  await statusShows(page, "online", "online");
  t.is(await page.getByTestId("user").textContent(), email);

  await addTodo(page, "Buy milk");
  await addTodo(page, "Call mum");
  await addTodo(page, "Water plants");
  await statusShows(page, "queued", "0 queued");
  await rename(page, "Call mum", "Call dad");
  await todoRow(page, "Buy milk").getByTestId("done").check();
  await todoRow(page, "Water plants").getByTestId("delete").click();
  await todoRow(page, "Water plants").waitFor({ state: "detached" });
  await statusShows(page, "queued", "0 queued");
  t.deepEqual(await titlesOn(page), ["Buy milk", "Call dad"]);
  t.true(await todoRow(page, "Buy milk").getByTestId("done").isChecked());
  await screenshot(page, "01-todos");

  const stored = await Todo.find({ title: { $in: ["Buy milk", "Call dad", "Water plants", "Call mum"] } }).lean();
  const byTitle = Object.fromEntries(stored.filter((doc) => !(doc as { deleted?: boolean }).deleted).map((doc) => [doc.title, doc.done]));
  t.deepEqual(byTitle, { "Buy milk": true, "Call dad": false });
  // Soft-deleted: the model's reads hide it, the collection still has it.
  t.like(await Todo.collection.findOne({ title: "Water plants" }), { deleted: true });
  t.is(await page.getByTestId("persistence").textContent(), "storage: durable");
});

test.serial("two devices: A edits offline, B edits the same todo and another; A comes back, sees the conflict, keeps its edit; both converge", async (t) => {
  const { browser, url } = await shared;
  const a = await openDevice(browser, url);
  const b = await openDevice(browser, url);
  t.teardown(() => a.context.close());
  t.teardown(() => b.context.close());
  const email = uniqueTestEmail("two");
  await signInOn(a.page, "signup", email);
  await addTodo(a.page, "Shared");
  await addTodo(a.page, "Other");
  await statusShows(a.page, "queued", "0 queued");
  await signInOn(b.page, "login", email);
  await todoRow(b.page, "Other").waitFor();
  t.deepEqual(await titlesOn(b.page), ["Other", "Shared"]);

  // A goes offline: the network, and the app's own toggle (which also drops the socket).
  await setDeviceOffline(a, true);
  await statusShows(a.page, "online", "offline");
  await rename(a.page, "Shared", "Shared (A)");
  await statusShows(a.page, "queued", "1 queued");
  await screenshot(a.page, "02-a-offline-edit");

  await rename(b.page, "Shared", "Shared (B)");
  await rename(b.page, "Other", "Other (B)");
  await statusShows(b.page, "queued", "0 queued");

  await setDeviceOffline(a, false);
  await statusShows(a.page, "conflicts", "1 conflicts");
  await todoRow(a.page, "Other (B)").waitFor({ timeout: 20_000 });
  const conflict = a.page.getByTestId("conflict");
  t.is(await conflict.getByTestId("mine").textContent(), "Shared (A)");
  t.is(await conflict.getByTestId("theirs").textContent(), "Shared (B)");
  await screenshot(a.page, "03-a-conflict-panel");
  await accessible(t, a.page, "the app with todos and a conflict");
  // A phone's width: everything wraps, nothing scrolls sideways.
  await a.page.setViewportSize({ width: 390, height: 800 });
  t.true((await a.page.evaluate("document.documentElement.scrollWidth")) as number <= 390, "no horizontal scrolling at 390px");
  await screenshot(a.page, "03-a-conflict-panel-phone");

  await conflict.getByTestId("keep-mine").click();
  await statusShows(a.page, "conflicts", "0 conflicts");
  await statusShows(a.page, "queued", "0 queued");
  await todoRow(b.page, "Shared (A)").waitFor({ timeout: 20_000 });
  t.deepEqual(await titlesOn(a.page), ["Other (B)", "Shared (A)"]);
  t.deepEqual(await titlesOn(b.page), ["Other (B)", "Shared (A)"]);
  await screenshot(b.page, "04-b-converged");

  // A deletes offline what B renames: the panel says the local change was a deletion.
  await setDeviceOffline(a, true);
  await statusShows(a.page, "online", "offline");
  await todoRow(a.page, "Other (B)").getByTestId("delete").click();
  await statusShows(a.page, "queued", "1 queued");
  await rename(b.page, "Other (B)", "Other (B2)");
  await statusShows(b.page, "queued", "0 queued");
  await setDeviceOffline(a, false);
  await statusShows(a.page, "conflicts", "1 conflicts");
  const deletion = a.page.getByTestId("conflict");
  t.is(await deletion.getByTestId("mine").textContent(), "(deleted)");
  t.is(await deletion.getByTestId("theirs").textContent(), "Other (B2)");
  await deletion.getByTestId("use-server").click();
  await statusShows(a.page, "conflicts", "0 conflicts");
  await todoRow(a.page, "Other (B2)").waitFor({ timeout: 20_000 });
});

test.serial("a password changed on another device ends this one's sign-in: said in the status bar, and edits wait for the next sign-in", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  const email = uniqueTestEmail("lapsed");
  await signInOn(page, "signup", email);
  await addTodo(page, "Before");
  await statusShows(page, "queued", "0 queued");
  // Another device signs in and changes the password: every other sign-in ends, this one's too.
  const json = { "content-type": "application/json" };
  const other = await fetch(`${url}/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ email, password: "correct horse battery staple" }) });
  const { token } = ((await other.json()) as { data: { token: string } }).data;
  const changed = await fetch(`${url}/auth/change_password`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ currentPassword: "correct horse battery staple", newPassword: "a new horse battery staple" }),
  });
  t.is(changed.status, 200);
  // Reopened, the app finds its sign-in ended (AUTH_TOKEN_REVOKED) and its refresh refused.
  await page.reload();
  await page.getByTestId("auth-paused").waitFor({ timeout: 20_000 });
  await addTodo(page, "While signed out");
  await statusShows(page, "queued", "1 queued");
  t.is(await Todo.countDocuments({ title: "While signed out" }), 0, "nothing sent without a valid sign-in");
});

test.serial("signing out ends the sign-in on the server too: its refresh token is refused afterwards", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  await signInOn(page, "signup", uniqueTestEmail("signout"));
  await page.getByTestId("status").waitFor();
  // Runs in the page (the tests' types have no DOM).
  const session = JSON.parse(
    (await page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem("svc-web-demo-session"))) ?? "{}",
  ) as { refreshToken?: string };
  t.is(typeof session.refreshToken, "string");
  const signedOut = page.waitForResponse((response) => response.url().endsWith("/auth/logout"));
  await page.getByTestId("sign-out").click();
  t.is((await signedOut).status(), 204);
  await page.getByTestId("sign-in").waitFor();
  const refused = await fetch(`${url}/auth/refresh_token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken: session.refreshToken }) });
  t.is(refused.status, 401);
});

test.serial("your devices: the panel lists where the account is signed in, and signing another device out ends its access at once; axe finds nothing serious", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  const email = uniqueTestEmail("devices");
  await signInOn(page, "signup", email);
  await page.getByTestId("status").waitFor();
  // Another device signs in (a phone app, say).
  const phone = await fetch(`${url}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "TodoPhone/1.0 (Android 16)" },
    body: JSON.stringify({ email, password: "correct horse battery staple" }),
  });
  const { token } = ((await phone.json()) as { data: { token: string } }).data;
  const phoneMe = () => fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  t.is((await phoneMe()).status, 200);

  await page.getByText("Your devices").click();
  const devices = page.getByTestId("device");
  await devices.nth(1).waitFor();
  t.is(await devices.count(), 2);
  t.regex((await devices.nth(0).textContent()) ?? "", /TodoPhone\/1\.0/);
  t.regex((await devices.nth(1).textContent()) ?? "", /This device/);
  await accessible(t, page, "the devices panel");

  await page.getByRole("button", { name: "Sign out TodoPhone/1.0 (Android 16)" }).click();
  await devices.nth(1).waitFor({ state: "detached" });
  t.regex((await devices.nth(0).textContent()) ?? "", /This device/);
  const refused = await phoneMe();
  t.is(refused.status, 401);
  t.is(((await refused.json()) as { errors: Array<{ code: string }> }).errors[0]!.code, "AUTH_TOKEN_REVOKED");
  // This device is still signed in and syncing.
  await addTodo(page, "Still here");
  await statusShows(page, "queued", "0 queued");
  await screenshot(page, "08-devices");
});

test.serial("forgot password: the page asks for a link, the link opens the reset page, the new password signs in; axe finds nothing serious", async (t) => {
  const { app, browser, url } = await shared;
  const email = uniqueTestEmail("forgot");
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  await signInOn(page, "signup", email);
  await page.getByTestId("sign-out").click();

  await page.getByTestId("forgot").click();
  t.regex((await page.getByRole("alert").textContent()) ?? "", /Enter your email/);
  await page.getByTestId("email").fill(email);
  await page.getByTestId("forgot").click();
  t.regex((await page.getByTestId("notice").textContent()) ?? "", /a reset link is on its way/);

  // The demo's console mailer keeps what it "sent": the test reads the mail as its recipient would.
  const link = await mailedLink(app, email, "Reset your svc demo password", "reset");
  await page.goto(`${url}${link}`);
  await page.getByTestId("reset").waitFor();
  await accessible(t, page, "the reset page");
  await page.getByTestId("new-password").fill("a brand new horse battery");
  await page.getByTestId("set-password").click();
  t.regex((await page.getByTestId("notice").textContent()) ?? "", /password is changed/);
  t.false(page.url().includes("reset="), "the used token left the address bar");
  await screenshot(page, "07-password-reset");

  await signInOn(page, "login", email, "a brand new horse battery");
  await page.getByTestId("status").waitFor();
  // The link worked once.
  const again = await fetch(`${url}/auth/password_reset/confirm`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: link.split("=")[1], newPassword: "one more horse battery" }) });
  t.is(again.status, 400);
});

test.serial("email verification: the link from the sign-up mail confirms the address; axe finds nothing serious", async (t) => {
  const { app, browser, url } = await shared;
  const email = uniqueTestEmail("verify");
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  await signInOn(page, "signup", email);
  const link = await mailedLink(app, email, "Confirm your svc demo email", "verify");
  await page.goto(`${url}${link}`);
  t.regex((await page.getByTestId("verified").textContent()) ?? "", /email is confirmed/);
  t.false(page.url().includes("verify="), "the used token left the address bar");
  await accessible(t, page, "the todo app with the confirmation");
  t.truthy((await User.findOne({ email }).lean<{ emailVerifiedAt?: Date }>())?.emailVerifiedAt);
});

test.serial("change your email: the panel asks with the password, the link mailed to the new address confirms it, the page shows it, the old address is told; axe finds nothing serious", async (t) => {
  const { app, browser, url } = await shared;
  const email = uniqueTestEmail("before");
  const newEmail = uniqueTestEmail("after");
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  await signInOn(page, "signup", email);
  await page.getByTestId("status").waitFor();

  await page.getByText("Change your email").click();
  const panel = page.getByTestId("change-email");
  await panel.getByLabel("New email").fill(newEmail);
  await panel.getByLabel("Current password").fill("not the password");
  await page.getByTestId("send-email-change").click();
  t.regex((await panel.getByRole("alert").textContent()) ?? "", /current password is not correct/i);
  await panel.getByLabel("Current password").fill("correct horse battery staple");
  await page.getByTestId("send-email-change").click();
  t.regex((await panel.getByRole("status").textContent()) ?? "", /confirmation link is on its way/);
  await accessible(t, page, "the change-email panel");
  // Nothing changes until the link is followed.
  t.is(await page.getByTestId("user").textContent(), email);

  const link = await mailedLink(app, newEmail, "Confirm your new svc demo email", "email_change");
  await page.goto(`${url}${link}`);
  t.true(((await page.getByTestId("verified").textContent()) ?? "").includes(`sign-in email is now ${newEmail}`));
  t.false(page.url().includes("email_change="), "the used token left the address bar");
  await page.getByTestId("user").filter({ hasText: newEmail }).waitFor();
  const stored = await User.findOne({ email: newEmail }).lean<{ emailVerifiedAt?: Date }>();
  t.truthy(stored?.emailVerifiedAt);
  // The old address hears of it (the demo's onChanged).
  t.true((await mailedNotice(app, email, "Your svc demo sign-in email changed")).includes(newEmail));
  const signIn = await fetch(`${url}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: newEmail, password: "correct horse battery staple" }) });
  t.is(signIn.status, 200);
  await screenshot(page, "09-email-changed");
});

test.serial("delete your account: the password confirms it, the device signs out and says so, the account and its todos are gone on the server; axe finds nothing serious", async (t) => {
  const { browser, url } = await shared;
  const email = uniqueTestEmail("goodbye");
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  await signInOn(page, "signup", email);
  await addTodo(page, "Mine alone");
  await statusShows(page, "queued", "0 queued");
  const userId = String((await User.findOne({ email }).lean())!._id);
  t.is(await Todo.countDocuments({ ownerId: userId }), 1);

  await page.getByText("Delete your account").click();
  await page.getByTestId("delete-password").fill("not the password");
  await page.getByTestId("delete-account-button").click();
  t.regex((await page.getByTestId("delete-account").getByRole("alert").textContent()) ?? "", /current password is not correct/i);
  await accessible(t, page, "the delete-account panel");
  await page.getByTestId("delete-password").fill("correct horse battery staple");
  await page.getByTestId("delete-account-button").click();
  await page.getByTestId("sign-in").waitFor();
  t.regex((await page.getByTestId("notice").textContent()) ?? "", /account and its todos are deleted/);

  // The demo's user model has no isDeletedPlugin: the record goes (its todos are soft-deleted, so devices hear of it).
  t.is(await User.findById(userId).lean(), null);
  t.is(await Todo.countDocuments({ ownerId: userId }), 0);
  t.is(await Todo.countDocuments({ ownerId: userId, deleted: true }), 1);
  const signIn = await fetch(`${url}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "correct horse battery staple" }) });
  t.is(signIn.status, 401);
});

test.serial("a reload keeps queued offline edits (IndexedDB), and they are sent when the network is back", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  const email = uniqueTestEmail("reload");
  await signInOn(page, "signup", email);
  await addTodo(page, "Sent before");
  await statusShows(page, "queued", "0 queued");
  // Offline as far as sync goes: no socket, no mutation requests. The page itself and the
  // encryption key (GET /sync/key) still load, so the reload can happen.
  await context.routeWebSocket(/socket\.io/, (socket) => socket.close());
  await context.route(/\/sync\/(mutate|snapshot|streams|entities)/, (route) => route.abort("internetdisconnected"));
  await page.getByTestId("offline-toggle").click();
  await addTodo(page, "Queued offline");
  await statusShows(page, "queued", "1 queued");
  // The outbox row is stored a moment after the UI shows it; the app says when (whenPersisted).
  await statusShows(page, "stored", "saved on this device");
  await page.reload();
  await page.getByTestId("status").waitFor();
  await todoRow(page, "Queued offline").waitFor();
  await statusShows(page, "queued", "1 queued");
  t.deepEqual(await titlesOn(page), ["Queued offline", "Sent before"]);
  await screenshot(page, "05-reloaded-with-queue");
  t.is(await Todo.countDocuments({ title: "Queued offline" }), 0);

  await context.unrouteAll();
  await context.unrouteAll({ behavior: "ignoreErrors" });
  await page.reload();
  await statusShows(page, "queued", "0 queued");
  t.is(await Todo.countDocuments({ title: "Queued offline" }), 1);
});

test.serial("IndexedDB holds no plaintext title", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  await signInOn(page, "signup", uniqueTestEmail("secret"));
  const title = "Plaintext canary 8c1f0e";
  await addTodo(page, title);
  await statusShows(page, "queued", "0 queued");
  const dump = (await page.evaluate(INDEXED_DB_DUMP)) as { names: string[]; records: number; text: string };
  t.true(dump.names.length > 0, "the app stored something in IndexedDB");
  t.true(dump.records > 0);
  t.false(dump.text.includes(title), "the title is not stored in plaintext");
  t.false(dump.text.includes("canary"), "not even a part of it");
});

test.serial("two tabs of one device share one database: one tab runs the engine and drains the outbox, both show the same data", async (t) => {
  const { browser, url } = await shared;
  const { context, page } = await openDevice(browser, url);
  t.teardown(() => context.close());
  const email = uniqueTestEmail("tabs");
  await signInOn(page, "signup", email);
  const second = await context.newPage();
  const tabs = [page, second];
  // Sync traffic per tab: socket.io connections and HTTP mutations.
  const sockets = new Map<Page, WebSocket[]>(tabs.map((tab) => [tab, []]));
  const mutateRequests = new Map<Page, number>(tabs.map((tab) => [tab, 0]));
  for (const tab of tabs) {
    tab.on("websocket", (socket) => void (/socket\.io/.test(socket.url()) && sockets.get(tab)!.push(socket)));
    tab.on("request", (request) => void (/\/sync\/mutate/.test(request.url()) && mutateRequests.set(tab, mutateRequests.get(tab)! + 1)));
  }
  await second.goto(`${url}/app`);
  await second.getByTestId("status").waitFor();
  await statusShows(second, "online", "online");
  // The tab opened second follows: it shows the leader's connection and opens none itself.
  const openSockets = (tab: Page) => sockets.get(tab)!.filter((socket) => !socket.isClosed()).length;
  t.is(openSockets(second), 0);

  await addTodo(second, "From the follower tab");
  await todoRow(page, "From the follower tab").waitFor({ timeout: 20_000 });
  await addTodo(page, "From the leader tab");
  await todoRow(second, "From the leader tab").waitFor({ timeout: 20_000 });
  await statusShows(page, "queued", "0 queued");
  await statusShows(second, "queued", "0 queued");
  t.is(await Todo.countDocuments({ title: { $in: ["From the follower tab", "From the leader tab"] } }), 2);
  t.is(openSockets(second), 0, "the follower never connected");
  t.is(mutateRequests.get(second), 0, "the follower sent nothing: the leader drained the outbox");
  t.deepEqual(await titlesOn(page), await titlesOn(second));
  await screenshot(second, "06-second-tab");

  // The leader tab closes: the other takes over and opens the connection itself.
  await page.close();
  for (let waited = 0; openSockets(second) === 0 && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  t.is(openSockets(second), 1, "the remaining tab leads now");
  await addTodo(second, "After the hand-over");
  await statusShows(second, "queued", "0 queued");
  t.is(await Todo.countDocuments({ title: "After the hand-over" }), 1);
});
