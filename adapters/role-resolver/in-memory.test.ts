import test from "ava";
import { inMemoryRoleResolver } from "./in-memory.js";
import { roleResolverConformance } from "../conformance/role-resolver.js";

roleResolverConformance(test, "in-memory", async (roles) => inMemoryRoleResolver(roles));
