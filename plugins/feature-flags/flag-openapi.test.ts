import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { authTestApp } from "../../test/support/auth-test-app.js";
import { featureFlagsPlugin } from "./index.js";

test.after.always(() => stopTestDatabase());

type Document = { paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>; tags?: Array<{ name: string; description?: string }> };

test("flag routes carry stable operation ids and the plugin's one tag, declared once", async (t) => {
  const { http } = await authTestApp(t, {}, {}, (app) =>
    app.register(featureFlagsPlugin({ openFeatureDomain: "flag-openapi-test", changeDetection: "poll" })),
  );
  const document = (await request(http).get("/openapi.json").expect(200)).body as Document;
  const ids: Record<string, string | undefined> = {};
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith("/feature-flags")) continue;
    for (const [method, operation] of Object.entries(item)) {
      ids[`${method.toUpperCase()} ${path}`] = operation.operationId;
      for (const tag of operation.tags ?? []) tags.add(tag);
    }
  }
  t.deepEqual(ids, {
    "GET /feature-flags/flags": "listFeatureFlags",
    "POST /feature-flags/flags": "createFeatureFlag",
    "GET /feature-flags/flags/{id}": "readFeatureFlag",
    "PATCH /feature-flags/flags/{id}": "updateFeatureFlag",
    "DELETE /feature-flags/flags/{id}": "deleteFeatureFlag",
    "GET /feature-flags/segments": "listFlagSegments",
    "GET /feature-flags/flagConfiguration": "readFlagConfiguration",
    "GET /feature-flags/evaluate": "evaluateFlags",
  });
  t.deepEqual([...tags], ["feature-flags"]);
  const declared = document.tags?.filter((tag) => tag.name === "feature-flags") ?? [];
  t.is(declared.length, 1);
  t.truthy(declared[0]!.description);
  t.false(document.tags?.some((tag) => tag.name === "FeatureFlag"), "the CRUD router uses the plugin's tag, not the model's");
});
