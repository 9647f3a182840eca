import test from "ava";
import { Router } from "express";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { adminTestApp, Gadget, testAdminOptions } from "../../test/support/admin-test-app.js";
import { hasErrorCode } from "../../kernel/errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { mountAdminUi } from "./admin-ui-route.js";
import { AdminErrors } from "./index.js";

// The admin web UI's page and files through the real HTTP stack (what the UI does in a browser
// is admin-ui.e2e.test.ts). One app for the file; the bundle is built once per process.

test.after.always(() => stopTestDatabase());
const stops: (() => Promise<void>)[] = [];
test.after.always(async () => {
  for (const stop of stops) await stop();
});
const appWith = (ui: Parameters<typeof testAdminOptions>[0] = {}) => adminTestApp("SvcApp", (fn) => stops.push(fn), testAdminOptions(ui));
const silent: SvcLogger = { debug() {}, info() {}, warn() {}, error() {} };
const shared = appWith({ ui: { appName: 'Acme </script><script>alert("x")</script>' } });

function settingsOf(html: string): unknown {
  const match = /<script id="svc-admin-settings" type="application\/json">([^<]*)<\/script>/.exec(html);
  return match ? JSON.parse(match[1]!) : undefined;
}

test("GET /admin/ is the page (/admin redirects there): its script and stylesheet, the settings as data, a strict CSP, public", async (t) => {
  const { http } = await shared;
  // Relative, as the page's own URLs are: a proxy may serve the app under a prefix.
  await request(http).get("/admin?x=1").expect(301).expect("location", "admin/?x=1");
  const page = await request(http).get("/admin/").expect(200);
  t.regex(page.headers["content-type"]!, /^text\/html/);
  const csp = page.headers["content-security-policy"]!;
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) t.true(csp.includes(directive), directive);
  t.is(page.headers["x-content-type-options"], "nosniff");
  t.regex(page.text, /<script type="module" src="ui\/main\.js"><\/script>/);
  // The app's name is the caller's text: escaped in the title, and unable to end the settings element.
  t.deepEqual(settingsOf(page.text), { basePath: "/admin", signIn: "jwt", appName: 'Acme </script><script>alert("x")</script>', screenScripts: [] });
  t.is(page.text.match(/<script/g)?.length, 2);
  t.true(page.text.includes("<title>Acme &#60;/script&#62;&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; admin</title>"));
});

test("the UI's files: script (and stylesheet, when the UI has one) with an ETag, revalidated with 304", async (t) => {
  const { http } = await shared;
  const page = await request(http).get("/admin/").expect(200);
  const script = await request(http).get("/admin/ui/main.js").expect(200);
  t.regex(script.headers["content-type"]!, /^text\/javascript/);
  t.true(script.body.length > 1000 || script.text.length > 1000);
  t.is(script.headers["cache-control"], "no-cache");
  const etag = script.headers.etag!;
  t.truthy(etag);
  await request(http).get("/admin/ui/main.js").set("If-None-Match", etag).expect(304);
  if (page.text.includes('href="ui/main.css"')) await request(http).get("/admin/ui/main.css").expect(200).expect("content-type", /^text\/css/);
});

test("unknown, traversing and hostile file names are a JSON 404, never a file from disk", async (t) => {
  const { http } = await shared;
  for (const name of ["nope.js", "..%2Fadmin-plugin.ts", "..%2F..%2F..%2Fpackage.json", "main.js%00", "%2e%2e", "tsconfig.json", "main.tsx"]) {
    const response = await request(http).get(`/admin/ui/${name}`);
    t.true(response.status === 404 || response.status === 400, `${name}: ${response.status}`);
    t.is(typeof response.body.errors?.[0]?.code, "string", name);
  }
});

test("ui: false serves the admin API alone; signIn can be set; a model cannot take the /ui route", async (t) => {
  const off = await appWith({ ui: false });
  await request(off.http).get("/admin/").expect(404);
  await request(off.http).get("/admin/ui/main.js").expect(404);

  const session = await appWith({ ui: { signIn: "session" } });
  const page = await request(session.http).get("/admin/").expect(200);
  t.like(settingsOf(page.text), { signIn: "session" });

  const error = await t.throwsAsync(appWith({ models: [{ model: Gadget, routePath: "/ui", displayName: "Gadgets", listFields: ["title"] }] }));
  t.true(error?.message.endsWith(AdminErrors.RESERVED_ROUTE("/ui", "Gadget").message), error?.message);
});

test("ui.screenScripts: the page's settings list them in order (the page loads them, not the server); an entry that is not a path of the app's own origin stops the start", async (t) => {
  const scripts = ["/admin-screens/reports.js", "/static/screens/billing.mjs?v=2", "/x/%E2%9C%93.js"];
  const { http } = await appWith({ ui: { screenScripts: scripts } });
  const page = await request(http).get("/admin/").expect(200);
  t.like(settingsOf(page.text), { screenScripts: scripts });
  // Loaded by the UI's script with import(): the page itself still runs only its own script, under the same CSP.
  t.is(page.text.match(/<script/g)?.length, 2);
  t.true(page.headers["content-security-policy"]!.includes("script-src 'self';"));

  const refused: unknown[] = [
    "admin-screens/reports.js",
    "//evil.example/x.js",
    "/\\evil.example/x.js",
    "https://evil.example/x.js",
    "javascript:alert(1)",
    "/a/../../x.js",
    "/a/%2E%2e/x.js",
    "/./x.js",
    "/a b.js",
    "/a.js\n",
    "/a.js#x",
    "",
    42,
  ];
  // Checked where the page is mounted; the wiring through adminPlugin once, the rules on their own.
  const error = await t.throwsAsync(appWith({ ui: { screenScripts: ["//evil.example/x.js"] } }));
  t.true(hasErrorCode(error, AdminErrors.INVALID_SCREEN_SCRIPT), error?.message);
  const mount = (screenScripts: readonly unknown[]) => () => mountAdminUi(Router(), { basePath: "/admin", signIn: "jwt", appName: "Acme", screenScripts: screenScripts as string[] }, () => silent);
  for (const script of refused) {
    const refusal = t.throws(mount([script]), undefined, JSON.stringify(script));
    t.true(hasErrorCode(refusal, AdminErrors.INVALID_SCREEN_SCRIPT), `${JSON.stringify(script)}: ${refusal?.message}`);
  }
  const twenty = Array.from({ length: 20 }, (_, index) => `/screens/${index}.js`);
  t.notThrows(mount(twenty));
  t.true(hasErrorCode(t.throws(mount([...twenty, "/screens/more.js"])), AdminErrors.INVALID_SCREEN_SCRIPT));
  t.true(hasErrorCode(t.throws(mount(["/a.js", "/a.js"])), AdminErrors.INVALID_SCREEN_SCRIPT));
});
