import test from "ava";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { roleModel, rolesCollectionResolver } from "./roles-collection.js";
import { roleResolverConformance } from "../conformance/role-resolver.js";

// One app per file: it opens the connection the Role model lives on.
const app = createTestApp().then(async (built) => {
  await built.build();
  return built;
});

test.after.always(async () => {
  await (await app).stop();
  await stopTestDatabase();
});

roleResolverConformance(test, "roles collection", async (roles) => {
  await app;
  await roleModel().create(roles.map((role) => ({ name: role.name, permissions: [...role.permissions] })));
  return rolesCollectionResolver();
});
