import test from "ava";
import request from "supertest";
import { HTTP_ROUTER, type SvcPlugin } from "../../index.js";
import { bearer, createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { authPlugin } from "../auth/index.js";
import { AdminTestUser, seedRoles, testAdminOptions } from "../../test/support/admin-test-app.js";
import { ADMIN_PERMISSIONS, AdminErrors, adminPlugin, roleModel } from "./index.js";

// An app's own route behind the admin's permissions, as a custom screen's would be, through the
// real HTTP stack: the same answer as the admin's own routes give.

test.after.always(() => stopTestDatabase());

/** The app's plugin: a report only `reports:read` holders (who may open the admin) get. */
const reports: SvcPlugin = {
  name: "reports",
  dependsOn: ["admin"],
  start(ctx) {
    const permissions = ctx.resolve(ADMIN_PERMISSIONS);
    ctx.resolve(HTTP_ROUTER).get("/reports/summary", permissions.require("reports:read", "reports:*"), (_req, res) => res.json({ data: { open: 3 } }));
    ctx.resolve(HTTP_ROUTER).get("/reports/can-export", async (req, res) => res.json({ data: await permissions.holds(req.user, "reports:export") }));
  },
};

test("require(): 401 signed out, 403 without the permission or without admin:access, 200 with both or admin: true; holds() agrees", async (t) => {
  const app = (await createTestApp()).register(authPlugin({ userModel: AdminTestUser })).register(reports).register(adminPlugin(testAdminOptions()));
  t.teardown(() => app.stop());
  const http = await app.build();
  await seedRoles();
  await roleModel().create([
    { name: "reporter", permissions: ["admin:access", "reports:read"] },
    { name: "report-reader-only", permissions: ["reports:read", "reports:export"] },
    { name: "exporter", permissions: ["admin:access", "reports:*"] },
  ]);
  const as = async (fields: Record<string, unknown>) => bearer(await loginAs(app, await createUser(app, fields)));
  const [reporter, noGate, exporter, plain, admin] = await Promise.all([as({ roles: ["reporter"] }), as({ roles: ["report-reader-only"] }), as({ roles: ["exporter"] }), as({}), as({ admin: true })]);

  t.is((await request(http).get("/reports/summary").expect(401)).body.errors[0].code, "HTTP_UNAUTHENTICATED");
  t.is((await request(http).get("/reports/summary").set(plain).expect(403)).body.errors[0].code, "HTTP_FORBIDDEN");
  // The admin's permissions need the admin's gate, whatever else the role holds.
  await request(http).get("/reports/summary").set(noGate).expect(403);
  await request(http).get("/reports/summary").set(reporter).expect(200, { data: { open: 3 } });
  await request(http).get("/reports/summary").set(exporter).expect(200);
  await request(http).get("/reports/summary").set(admin).expect(200);

  const exports = async (who: Record<string, string>) => (await request(http).get("/reports/can-export").set(who).expect(200)).body.data as boolean;
  t.deepEqual(await Promise.all([reporter, noGate, exporter, plain, admin].map(exports)), [false, false, true, false, true]);
  t.false((await request(http).get("/reports/can-export").expect(200)).body.data);
});

test("ADMIN_PERMISSIONS exists only while the admin runs: ADMIN_NOT_STARTED before its start and after its stop", async (t) => {
  let early: unknown;
  // Starts before the admin (registered first, no dependency on it): the mistake the code names.
  const probe: SvcPlugin = { name: "probe", start: (ctx) => void (early = t.throws(() => ctx.resolve(ADMIN_PERMISSIONS))) };
  const app = (await createTestApp()).register(probe).register(authPlugin({ userModel: AdminTestUser })).register(adminPlugin(testAdminOptions()));
  t.teardown(() => app.stop());
  await app.build();
  t.is((early as Error | undefined)?.message, AdminErrors.NOT_STARTED().message);
  t.is(typeof app.kernel.container.resolve(ADMIN_PERMISSIONS).require, "function");
  await app.stop();
  t.is(t.throws(() => app.kernel.container.resolve(ADMIN_PERMISSIONS))?.message, AdminErrors.NOT_STARTED().message);
});
