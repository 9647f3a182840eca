import test from "ava";
import { grants } from "./permission-set.js";

test("grants: exact, resource wildcard and global wildcard; nothing else", (t) => {
  t.true(grants(new Set(["adminTodo:read"]), "adminTodo:read"));
  t.false(grants(new Set(["adminTodo:read"]), "adminTodo:write"));
  t.true(grants(new Set(["adminTodo:*"]), "adminTodo:writeOwned"));
  t.false(grants(new Set(["adminTodo:*"]), "adminUser:read"));
  t.true(grants(new Set(["*"]), "configuration:read"));
  t.false(grants(new Set(["adminTodo"]), "adminTodo:read"));
  t.false(grants(new Set([]), "admin:access"));
});
