import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createScryptHasher, PASSWORD_HASHER, type SvcApp } from "../../../index.js";
import { createTestApp } from "../../../hosts/testing.js";
import { launchChromium } from "../../../test/support/chromium.js";
import { tempDir } from "../../../test/support/temp-dir.js";
import { withDemoPlugins } from "../../demo/app.js";
import { ConsoleMailer, MAILERS } from "../../../plugins/comms/index.js";
import { webAppPlugin } from "../web-app-plugin.js";

/** Screenshots of the e2e tests go here (git-ignored: under .svc/). */
export const ARTEFACTS = path.resolve(".svc/artefacts/web-demo");

/** The demo app (with the web app at /app) on a free port, and a headless Chromium. */
export async function startWebDemo(t: { teardown(fn: () => void): void }): Promise<{ url: string; app: SvcApp; browser: Browser; stop: () => Promise<void> }> {
  const app = withDemoPlugins(await createTestApp({ port: 0, host: "127.0.0.1" }))
    // Under a dot-directory, as `npm start`'s .svc/web is.
    .register(webAppPlugin(tempDir(t, ".svc-web-")))
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  const running = await app.start();
  const browser = await launchChromium();
  await mkdir(ARTEFACTS, { recursive: true });
  return {
    url: running.url!,
    app,
    browser,
    stop: async () => {
      await browser.close();
      await app.stop();
    },
  };
}

/** A device: its own browser context (storage, IndexedDB, network) with one page on /app. */
export async function openDevice(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  await page.goto(`${url}/app`);
  return { context, page };
}

/** Signs in (or up) through the page's form and waits for the todo app. */
export async function signInOn(page: Page, mode: "login" | "signup", email: string, password = "correct horse battery staple"): Promise<void> {
  await page.getByTestId("email").fill(email);
  await page.getByTestId("password").fill(password);
  await page.getByTestId(mode).click();
  await page.getByTestId("status").waitFor();
}

export async function addTodo(page: Page, title: string): Promise<void> {
  await page.getByTestId("new-title").fill(title);
  await page.getByTestId("new-title").press("Enter");
  await page.locator(`[data-testid=todo][data-title="${title}"]`).waitFor();
}

export const todoRow = (page: Page, title: string) => page.locator(`[data-testid=todo][data-title="${title}"]`);

/** Waits until the status bar shows `text` in the element `testId`. */
export async function statusShows(page: Page, testId: "online" | "queued" | "conflicts" | "stored", text: string): Promise<void> {
  await page.getByTestId(testId).filter({ hasText: text }).waitFor({ timeout: 20_000 });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTEFACTS, `${name}.png`), fullPage: true });
}

/** The titles the page lists, in order. */
export async function titlesOn(page: Page): Promise<string[]> {
  return page.getByTestId("title").allTextContents();
}

/**
 * A page script (a string: the test's compiled functions cannot be sent as they are) that reads
 * every record of every IndexedDB database of the page, keys and values, bytes as latin1 so
 * ciphertext can be searched too. Resolves with `{names, records, text}`.
 */
export const INDEXED_DB_DUMP = `(async () => {
  const flatten = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof ArrayBuffer) return String.fromCharCode(...new Uint8Array(value));
    if (ArrayBuffer.isView(value)) return String.fromCharCode(...new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    if (value && typeof value === "object") return Object.entries(value).map(([key, inner]) => key + ":" + flatten(inner)).join("|");
    return String(value);
  };
  const ask = (request) => new Promise((resolve, reject) => { request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error); });
  const names = (await indexedDB.databases()).map((info) => info.name).filter(Boolean);
  let records = 0;
  let text = "";
  for (const name of names) {
    const db = await ask(indexedDB.open(name));
    for (const store of Array.from(db.objectStoreNames)) {
      const keys = await ask(db.transaction(store).objectStore(store).getAllKeys());
      const values = await ask(db.transaction(store).objectStore(store).getAll());
      records += values.length;
      text += flatten(keys) + flatten(values);
    }
    db.close();
  }
  return { names, records, text };
})()`;


/**
 * The `/app/?<param>=<token>` link in the newest mail to `email` with `subject`, as the demo's
 * console mailer "sent" it (mails go out after the request answered: waits a bounded while).
 *
 * @example
 * const link = await mailedLink(app, email, "Reset your svc demo password", "reset");
 */
export async function mailedLink(app: SvcApp, email: string, subject: string, param: string): Promise<string> {
  const pattern = new RegExp(`/app/\\?${param}=[A-Za-z0-9_-]+`);
  const text = await mailedNotice(app, email, subject, (body) => pattern.test(body));
  return pattern.exec(text)![0];
}

/**
 * The text of the newest mail the demo's console mailer "sent" to `email` with `subject` (and,
 * with `accept`, a body it accepts); mails go out after the answer, so this waits for it.
 *
 * @example
 * const text = await mailedNotice(app, oldEmail, "Your svc demo sign-in email changed");
 */
export async function mailedNotice(app: SvcApp, email: string, subject: string, accept: (text: string) => boolean = () => true): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const mail = (app.resolve(MAILERS)[0] as ConsoleMailer).sent.findLast((sent) => sent.to === email && sent.subject === subject);
    if (mail?.text !== undefined && accept(mail.text)) return mail.text;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no "${subject}" mail to ${email}`);
}
