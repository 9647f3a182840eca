import test, { type ExecutionContext } from "ava";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tempDir } from "../../../test/support/temp-dir.js";
import { DEFAULT_CHROMIUM } from "./navigate-tool.js";
import { runtimeClient } from "./test-support/mcp-runtime-client.js";

/** A page with a console message, a script error and a missing image; closed at teardown. */
async function pageServer(t: ExecutionContext): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === "/") {
      res.setHeader("content-type", "text/html");
      res.end(`<!doctype html><title>Runtime page</title><h1>Hello runtime</h1><img src="/missing.png">
        <script>console.warn("careful"); setTimeout(() => { document.body.insertAdjacentHTML("beforeend", "<p id=late>late text</p>"); }, 50); missingFunction();</script>`);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("navigate reports console messages, page errors and waits for a selector", async (t) => {
  const base = await pageServer(t);
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-nav-"), { NODE_ENV: "development" });
  const report = (await call("navigate", { url: `${base}/`, waitForSelector: "#late", textLimit: 200 })).json<{
    title: string;
    text: string;
    status: number;
    console: Array<{ type: string; text: string }>;
    pageErrors: string[];
  }>();
  t.is(report.title, "Runtime page");
  t.is(report.status, 200);
  t.regex(report.text, /Hello runtime[\s\S]*late text/);
  t.true(report.console.some((message) => message.type === "warning" && message.text === "careful"));
  t.true(report.pageErrors.some((error) => /missingFunction/.test(error)));
  const short = (await call("navigate", { url: `${base}/`, textLimit: 5 })).json<{ text: string }>();
  t.is(short.text, "Hello…");
});

test("navigate drives a browser already running, through SVC_MCP_CDP_URL, and leaves it running", async (t) => {
  const base = await pageServer(t);
  // --no-sandbox: test machines run as root, where Chromium refuses its sandbox.
  // Its own process group, so the teardown stops Chromium's helper processes too, not only the
  // main one (they would go on writing into the profile directory being removed).
  const browser = spawn(DEFAULT_CHROMIUM, ["--headless=new", "--no-sandbox", "--remote-debugging-port=0", "--no-first-run", `--user-data-dir=${tempDir(t, "svc-mcp-chromium-")}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  t.teardown(async () => {
    if (browser.exitCode === null && browser.signalCode === null) {
      const exited = once(browser, "exit");
      process.kill(-browser.pid!, "SIGTERM");
      await exited;
    }
  });
  let stderr = "";
  const endpoint = await new Promise<string>((resolve, reject) => {
    browser.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    browser.once("exit", (code) => reject(new Error(`chromium exited (${code}): ${stderr}`)));
  });
  const httpEndpoint = endpoint.replace(/^ws:\/\/([^/]+)\/.*$/, "http://$1");
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-nav-"), { NODE_ENV: "development", SVC_MCP_CDP_URL: httpEndpoint });
  const report = (await call("navigate", { url: `${base}/` })).json<{ title: string }>();
  t.is(report.title, "Runtime page");
  t.is(browser.exitCode, null, "the user's browser is still running");
  t.is((await fetch(`${httpEndpoint}/json/version`)).status, 200, "and still answers DevTools");
});

test("navigate says what is missing: a browser, a reachable page", async (t) => {
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-nav-"), { NODE_ENV: "development", SVC_MCP_CHROMIUM: "/nonexistent/chromium" });
  const noBrowser = await call("navigate", { url: "http://127.0.0.1:9/" });
  t.regex(noBrowser.text, /^MCP_RUNTIME_NO_BROWSER: No browser to drive: could not launch \/nonexistent\/chromium/);
  const noCdp = await (await runtimeClient(t, tempDir(t, "svc-mcp-nav-"), { SVC_MCP_CDP_URL: "http://127.0.0.1:9" }))("navigate", { url: "http://127.0.0.1:9/" });
  t.regex(noCdp.text, /^MCP_RUNTIME_NO_BROWSER: No browser to drive: could not connect to SVC_MCP_CDP_URL/);
  const unreachable = await (await runtimeClient(t, tempDir(t, "svc-mcp-nav-"), {}))("navigate", { url: "http://127.0.0.1:9/", timeoutMs: 5000 });
  t.regex(unreachable.text, /^MCP_RUNTIME_NAVIGATION_FAILED: Could not load http:\/\/127\.0\.0\.1:9\//);
});
