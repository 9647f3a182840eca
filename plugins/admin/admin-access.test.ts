import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { adminOwnedBy, type AdminOptions } from "./index.js";
import { AdminTestUser, adminTestApp, testAdminOptions } from "../../test/support/admin-test-app.js";

test.after.always(() => stopTestDatabase());

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

// A team's authorize: everyone in the admin may edit their own user record. It decides which
// records; it cannot see the body, so it must not turn "my record" into "my privileges".
const selfService = (): AdminOptions => {
  const options = testAdminOptions({ basePath: "/self-service" });
  return {
    ...options,
    models: [
      {
        ...options.models[0]!,
        adminAccess: {
          ownedBy: adminOwnedBy("_id"),
          authorize: ({ action, instance, user }) => action === "list" || action === "read" || (action === "update" && (instance === undefined || String((instance as { _id?: unknown })._id) === user?.id)),
        },
      },
    ],
  };
};

test("authorize never lets a caller without write set protected fields (admin, roles, sign-in email)", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), selfService());
  const support = await app.user({ roles: ["support"] });
  const before = await AdminTestUser.findById(support.id).lean();

  for (const body of [{ admin: true }, { roles: ["full"] }, { email: "taken-over@example.com" }, { disabled: false, name: "ok" }]) {
    const response = await request(app.http).patch(`/self-service/users/${support.id}`).set(auth(support.token)).send(body).expect(403);
    t.is(response.body.errors[0].code, "ADMIN_FIELD_NOT_PERMITTED", JSON.stringify(body));
  }
  const bulk = await request(app.http).post("/self-service/users/bulk-update").set(auth(support.token)).send({ ids: [support.id], data: { admin: true } }).expect(403);
  t.is(bulk.body.errors[0].code, "ADMIN_FIELD_NOT_PERMITTED");
  const after = await AdminTestUser.findById(support.id).lean();
  t.deepEqual([after?.admin, after?.roles, after?.email], [before?.admin, before?.roles, before?.email]);

  // What authorize allows, on fields that are not protected, still works; a full admin may set anything.
  await request(app.http).patch(`/self-service/users/${support.id}`).set(auth(support.token)).send({ name: "Renamed" }).expect(200);
  const full = await app.user({ roles: ["full"] });
  await request(app.http).patch(`/self-service/users/${full.id}`).set(auth(full.token)).send({ roles: ["full", "support"] }).expect(200);
});
