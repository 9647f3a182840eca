// What the admin web UI's browser tests share: a person's own browser context on the admin page,
// and signing in.
import type { ExecutionContext } from "ava";
import type { Browser, BrowserContext, Page } from "playwright-core";

/** The password the admin UI tests give their users. */
export const ADMIN_UI_PASSWORD = "correct horse battery staple";

/** One person's browser context on the admin page, and the page errors and CSP refusals seen so far. */
export interface AdminPage {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly problems: string[];
}

/**
 * Opens the admin page of the app at `url` in a new browser context (closed when the test ends),
 * collecting page errors and Content-Security-Policy refusals, which a test asserts are none.
 *
 * @example
 * const { page, problems } = await openAdminPage(t, browser, url);
 * await signInAs(page, account.email);
 */
export async function openAdminPage(t: ExecutionContext, browser: Browser, url: string, width = 1280): Promise<AdminPage> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${url}/admin`);
  return { context, page, problems };
}

/** Fills in the sign-in form and sends it. */
export async function signInAs(page: Page, email: string, password = ADMIN_UI_PASSWORD): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}
