import test from "ava";
import { modelOperationNames } from "./operation-names.js";

test("the plural follows mongoose's rules on the last word and keeps its casing", (t) => {
  t.deepEqual(modelOperationNames("Post"), { one: "Post", many: "Posts" });
  t.deepEqual(modelOperationNames("DocTodo"), { one: "DocTodo", many: "DocTodos" });
  t.deepEqual(modelOperationNames("Category"), { one: "Category", many: "Categories" });
  t.deepEqual(modelOperationNames("Person"), { one: "Person", many: "People" });
  t.deepEqual(modelOperationNames("UserAddress"), { one: "UserAddress", many: "UserAddresses" });
  t.deepEqual(modelOperationNames("ShortURL"), { one: "ShortURL", many: "ShortURLs" });
  t.deepEqual(modelOperationNames("FeatureFlag"), { one: "FeatureFlag", many: "FeatureFlags" });
});

test("names become PascalCase identifiers", (t) => {
  t.deepEqual(modelOperationNames("todo_item"), { one: "TodoItem", many: "TodoItems" });
  t.deepEqual(modelOperationNames("post"), { one: "Post", many: "Posts" });
});

test("singular and plural overrides", (t) => {
  t.deepEqual(modelOperationNames("Person", { plural: "Persons" }), { one: "Person", many: "Persons" });
  t.deepEqual(modelOperationNames("FeatureFlag", { singular: "Flag" }), { one: "Flag", many: "Flags" });
  t.deepEqual(modelOperationNames("Datum", { singular: "Datum", plural: "Data" }), { one: "Datum", many: "Data" });
});
