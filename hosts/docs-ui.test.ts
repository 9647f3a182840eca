import test from "ava";
import express from "express";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "./testing.js";

// createTestApp starts the test database even for database-less apps.
test.after.always(() => stopTestDatabase());

/** The app with the docs UI on, mounted under `/api` in a parent app (as a reverse proxy would). */
async function mountedUnderPrefix(t: import("ava").ExecutionContext) {
  const app = await createTestApp({ env: { ENABLE_API_DOCS_UI: "true" }, database: false });
  const http = await app.build();
  t.teardown(() => app.stop());
  const parent = express();
  parent.use("/api", http);
  return parent;
}

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);

test("/docs redirects to /docs/ with a relative Location, so a stripped prefix survives", async (t) => {
  const parent = await mountedUnderPrefix(t);
  const redirect = await request(parent).get("/api/docs?deepLinking=true").expect(301);
  t.is(redirect.headers.location, "docs/?deepLinking=true");
  t.is(new URL(redirect.headers.location!, "http://host/api/docs?deepLinking=true").pathname, "/api/docs/");
});

test("under a prefix, the page's assets and the OpenAPI document resolve to the mounted app", async (t) => {
  const parent = await mountedUnderPrefix(t);
  const pageUrl = new URL("http://host/api/docs/");
  const page = await request(parent).get(pageUrl.pathname).expect(200);
  const assets = assetsOf(page.text);
  t.true(assets.length >= 4);
  let init = "";
  for (const asset of assets) {
    t.false(/^(\/|[a-z]+:)/i.test(asset), `${asset} is relative`);
    const response = await request(parent).get(new URL(asset, pageUrl).pathname).expect(200);
    if (asset === "init.js") init = response.text;
  }
  const specUrl = /url: "([^"]+)"/.exec(init)?.[1];
  t.truthy(specUrl, "init.js names the document");
  t.false(specUrl!.startsWith("/"), "the document's URL is relative");
  const resolved = new URL(specUrl!, pageUrl).pathname;
  t.is(resolved, "/api/openapi.json");
  const document = await request(parent).get(resolved).expect(200);
  t.is(document.body.openapi, "3.1.0");
  // "Try it out" sends to the document's server, resolved against the document's URL: the prefix.
  const servers = (document.body as { servers?: Array<{ url: string }> }).servers ?? [];
  t.is(servers.length, 1);
  const server = new URL(servers[0]!.url, new URL(resolved, pageUrl));
  t.is(server.pathname, "/api/");
  await request(parent).get(new URL("docs/", server).pathname).expect(200);
});

test("at the root the same relative URLs resolve to /openapi.json", async (t) => {
  const app = await createTestApp({ env: { ENABLE_API_DOCS_UI: "true" }, database: false });
  const http = await app.build();
  t.teardown(() => app.stop());
  t.is((await request(http).get("/docs").expect(301)).headers.location, "docs/");
  const init = (await request(http).get("/docs/init.js").expect(200)).text;
  const specUrl = /url: "([^"]+)"/.exec(init)![1]!;
  const resolved = new URL(specUrl, "http://host/docs/").pathname;
  t.is(resolved, "/openapi.json");
  await request(http).get(resolved).expect(200);
});
