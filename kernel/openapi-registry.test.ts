import test from "ava";
import { hasErrorCode } from "./errors.js";
import { OpenApiErrors, OpenApiRegistry, toOpenApiPath } from "./openapi-registry.js";

test("express paths become OpenAPI templates", (t) => {
  t.is(toOpenApiPath("/todos/:id"), "/todos/{id}");
  t.is(toOpenApiPath("/a/:x/b/:y_z/"), "/a/{x}/b/{y_z}");
  t.is(toOpenApiPath("/"), "/");
});

test("operations merge per path; the same operation twice is refused", (t) => {
  const registry = new OpenApiRegistry({ title: "t", version: "1" });
  registry.addOperation("get", "/todos/:id", { responses: { 200: { description: "ok" } } });
  registry.addOperation("patch", "/todos/:id", { responses: { 200: { description: "ok" } } });
  t.deepEqual(Object.keys(registry.document().paths!["/todos/{id}"]!), ["get", "patch"]);
  const error = t.throws(() => registry.addOperation("get", "/todos/{id}", { responses: {} }));
  t.true(hasErrorCode(error, OpenApiErrors.DUPLICATE_OPERATION));
});

test("identical components may be re-added, conflicting ones may not", (t) => {
  const registry = new OpenApiRegistry({ title: "t", version: "1" });
  registry.addSchema("Todo", { type: "object" });
  t.notThrows(() => registry.addSchema("Todo", { type: "object" }));
  t.true(hasErrorCode(t.throws(() => registry.addSchema("Todo", { type: "string" })), OpenApiErrors.DUPLICATE_COMPONENT));
});

test("the ETag is the SHA-256 of the served JSON and changes with the document", (t) => {
  const registry = new OpenApiRegistry({ title: "t", version: "1" });
  const first = registry.serialized();
  t.is(registry.serialized(), first); // cached
  t.regex(first.etag, /^"[0-9a-f]{64}"$/);
  registry.addTag({ name: "todos" });
  t.not(registry.serialized().etag, first.etag);
});

test("an operationId may be used once", (t) => {
  const registry = new OpenApiRegistry({ title: "t", version: "1" });
  registry.addOperation("get", "/todos", { operationId: "listTodos", responses: {} });
  t.true(registry.hasOperationId("listTodos"));
  t.false(registry.hasOperationId("readTodo"));
  const error = t.throws(() => registry.addOperation("get", "/other-todos", { operationId: "listTodos", responses: {} }));
  t.true(hasErrorCode(error, OpenApiErrors.DUPLICATE_OPERATION_ID));
  t.false("/other-todos" in registry.document().paths!, "a refused operation is not documented");
});

test("a tag is declared once; the first declaration's description stays", (t) => {
  const registry = new OpenApiRegistry({ title: "t", version: "1" });
  registry.addTag({ name: "auth", description: "Authentication" });
  registry.addTag({ name: "auth", description: "Something else" });
  t.deepEqual(registry.document().tags, [{ name: "auth", description: "Authentication" }]);
});

test("the one server is relative to the document, so it is the app wherever the app is mounted", (t) => {
  const { servers } = new OpenApiRegistry({ title: "t", version: "1" }).document();
  t.deepEqual(servers?.map((server) => server.url), ["."]);
  // How OpenAPI 3.1 (and Swagger UI) resolve it: against the URL the document was fetched from.
  t.is(new URL(servers![0]!.url, "http://host/api/openapi.json").href, "http://host/api/");
  t.is(new URL(servers![0]!.url, "http://host/openapi.json").href, "http://host/");
});
