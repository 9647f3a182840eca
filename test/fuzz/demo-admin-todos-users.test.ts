// The demo under hostile input, part 2 of 3: the admin's todo and user operations (the groups and
// their checks are in demo-groups.ts; demo-todos-auth-flags-sync.test.ts says why three files).
import { fuzzDemoPart } from "./demo-groups.js";

fuzzDemoPart("admin-todos-users");
