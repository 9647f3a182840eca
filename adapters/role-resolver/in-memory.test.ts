import { inMemoryRoleResolver } from "./in-memory.js";
import { roleResolverConformance } from "./test-support/role-resolver-conformance.js";

roleResolverConformance("in-memory", async (roles) => inMemoryRoleResolver(roles));
