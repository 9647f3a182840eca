import { fromJsonSchema, type CallToolResult, type McpServer } from "@modelcontextprotocol/server";
import type { Browser } from "playwright-core";
import { requireDevServer } from "./dev-channel.js";
import { RuntimeToolErrors } from "./runtime-errors.js";
import { toolResult, type RuntimeToolOptions } from "./tool-result.js";

/** Debian's chromium, used when neither `SVC_MCP_CDP_URL` nor `SVC_MCP_CHROMIUM` says otherwise. */
export const DEFAULT_CHROMIUM = "/usr/lib/chromium/chromium";

const MAX_MESSAGES = 50;

interface NavigateArgs {
  path?: string;
  url?: string;
  waitUntil?: "load" | "domcontentloaded" | "networkidle";
  waitForSelector?: string;
  screenshot?: boolean;
  textLimit?: number;
  timeoutMs?: number;
}

/**
 * `navigate`: loads a page of the app in Chromium through the DevTools protocol (playwright-core:
 * `connectOverCDP` to `SVC_MCP_CDP_URL`, else a headless Chromium it launches and closes) and
 * answers the final URL, HTTP status, title, visible text, console messages, page errors and
 * failed requests, with an optional PNG screenshot.
 *
 * @example
 * registerNavigateTool(server, { cwd: process.cwd(), env: process.env });
 */
export function registerNavigateTool(server: McpServer, options: RuntimeToolOptions): void {
  server.registerTool(
    "navigate",
    {
      description:
        "Open a page of the app in a browser (Chromium via the DevTools protocol) and report what it shows: final URL, status, title, " +
        "visible text, console messages, page errors and failed requests; optionally a screenshot. `path` is relative to the running dev server.",
      inputSchema: fromJsonSchema<NavigateArgs>({
        type: "object",
        properties: {
          path: { type: "string", pattern: "^/", maxLength: 2000, description: "Path on the running development server, e.g. /admin (default /)." },
          url: { type: "string", pattern: "^https?://", maxLength: 2000, description: "A full http(s) URL instead of a path (no dev server needed)." },
          waitUntil: { enum: ["load", "domcontentloaded", "networkidle"], description: "When the page counts as loaded (default load)." },
          waitForSelector: { type: "string", minLength: 1, maxLength: 500, description: "Also wait until this CSS selector is visible." },
          screenshot: { type: "boolean", description: "Add a PNG screenshot of the viewport (default false)." },
          textLimit: { type: "integer", minimum: 0, maximum: 50_000, description: "Most characters of visible text returned (default 5000)." },
          timeoutMs: { type: "integer", minimum: 1000, maximum: 60_000, description: "Navigation and wait timeout (default 15000)." },
        },
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (args) =>
      toolResult(async () => {
        if (args.path !== undefined && args.url !== undefined) throw RuntimeToolErrors.INVALID_ARGUMENT("give path or url, not both");
        const target = args.url ?? new URL(args.path ?? "/", (await requireDevServer(options.cwd)).url).href;
        return visit(target, args, await openBrowser(options.env));
      }),
  );
}

async function openBrowser(env: NodeJS.ProcessEnv): Promise<Browser> {
  let chromium: typeof import("playwright-core").chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch {
    throw RuntimeToolErrors.NO_BROWSER("the playwright-core package is not installed in this project (npm install -D playwright-core)");
  }
  const cdpUrl = env.SVC_MCP_CDP_URL?.trim();
  if (cdpUrl) {
    try {
      return await chromium.connectOverCDP(cdpUrl, { timeout: 10_000 });
    } catch (error) {
      throw RuntimeToolErrors.NO_BROWSER(`could not connect to SVC_MCP_CDP_URL ${cdpUrl}: ${firstLine(error)}`);
    }
  }
  const executablePath = env.SVC_MCP_CHROMIUM?.trim() || DEFAULT_CHROMIUM;
  try {
    return await chromium.launch({ executablePath, headless: true });
  } catch (error) {
    throw RuntimeToolErrors.NO_BROWSER(`could not launch ${executablePath}: ${firstLine(error)}`);
  }
}

async function visit(target: string, args: NavigateArgs, browser: Browser): Promise<CallToolResult> {
  const timeout = args.timeoutMs ?? 15_000;
  // A browser reached over CDP is the user's: only the context made here is closed, not the browser.
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const consoleMessages: Array<{ type: string; text: string }> = [];
    const pageErrors: string[] = [];
    const failedRequests: Array<{ url: string; failure: string }> = [];
    page.on("console", (message) => {
      if (consoleMessages.length < MAX_MESSAGES) consoleMessages.push({ type: message.type(), text: message.text() });
    });
    page.on("pageerror", (error) => {
      if (pageErrors.length < MAX_MESSAGES) pageErrors.push(error.message);
    });
    page.on("requestfailed", (request) => {
      if (failedRequests.length < MAX_MESSAGES) failedRequests.push({ url: request.url(), failure: request.failure()?.errorText ?? "failed" });
    });
    let response;
    try {
      response = await page.goto(target, { waitUntil: args.waitUntil ?? "load", timeout });
      if (args.waitForSelector) await page.waitForSelector(args.waitForSelector, { state: "visible", timeout });
    } catch (error) {
      throw RuntimeToolErrors.NAVIGATION_FAILED(target, firstLine(error));
    }
    const text = await page.evaluate(() => (globalThis as unknown as { document: { body?: { innerText: string } } }).document.body?.innerText ?? "");
    const limit = args.textLimit ?? 5_000;
    const report = {
      url: page.url(),
      status: response?.status() ?? null,
      title: await page.title(),
      text: text.length > limit ? `${text.slice(0, limit)}…` : text,
      console: consoleMessages,
      pageErrors,
      failedRequests,
    };
    const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(report, null, 2) }];
    if (args.screenshot) content.push({ type: "image", mimeType: "image/png", data: (await page.screenshot({ type: "png" })).toString("base64") });
    return { content };
  } finally {
    await context.close().catch(() => undefined);
    await browser.close().catch(() => undefined);
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}
