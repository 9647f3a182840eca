// The demo under hostile input, part 3 of 3: the admin's other operations, comms, MCP, and every
// operation no group names (the groups and their checks are in demo-groups.ts;
// demo-todos-auth-flags-sync.test.ts says why three files).
import { fuzzDemoPart } from "./demo-groups.js";

fuzzDemoPart("admin-rest-comms-mcp-other");
