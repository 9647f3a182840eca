import type { AddressInfo } from "node:net";
import test from "ava";
import express from "express";
import mongoose from "mongoose";
import { chromium } from "playwright-core";
import { defaultPlugins, modelRouter, Permissions } from "../index.js";
import { createTestApp, stopTestDatabase } from "./testing.js";

// Swagger UI in a real Chromium, the app mounted under /api: what "Try it out" → Execute sends.

test.after.always(() => stopTestDatabase());

const schema = new mongoose.Schema(
  { title: { type: String, required: true, description: "Title" }, done: { type: Boolean, default: false, description: "Done" } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const Chore = mongoose.model("DocsUiBrowserChore", schema);

for (const prefix of ["/api", ""]) {
  test(`mounted at "${prefix || "/"}", Execute on a list route calls the app with no pre-filled filter and gets 200`, async (t) => {
    await executeList(t, prefix);
  });
}

async function executeList(t: import("ava").ExecutionContext, prefix: string): Promise<void> {
  const app = (await createTestApp({ env: { ENABLE_API_DOCS_UI: "true" } })).register(
    modelRouter("/chores", Chore, { permissions: { list: [Permissions.IsAny] }, queryFields: ["done", "title"] }),
  );
  const parent = express();
  parent.use(prefix || "/", await app.build());
  const server = parent.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const browser = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium", args: ["--no-sandbox"] });
  t.teardown(async () => {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
    await app.stop();
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = await browser.newPage();
  await page.goto(`${origin}${prefix}/docs`);
  const block = page.locator("#operations-DocsUiBrowserChore-listDocsUiBrowserChores");
  await block.locator(".opblock-summary").first().click();
  await block.locator("button.try-out__btn").click();
  const [response] = await Promise.all([page.waitForResponse((answer) => answer.url().includes("/chores")), block.locator("button.execute").click()]);
  const sent = new URL(response.url());
  t.is(sent.pathname, `${prefix}/chores`);
  t.deepEqual([...sent.searchParams.keys()].filter((key) => /^(done|title)\b/.test(key)), [], "no filter is sent until one is typed in");
  t.is(response.status(), 200);
}
