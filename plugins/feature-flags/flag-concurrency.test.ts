import test from "ava";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { featureFlagModel, featureFlagsPlugin } from "./index.js";

// Admins editing one flag at once, through the flag routes (a model router).
test.after.always(() => stopTestDatabase());

const BURST = 20;

async function flagAdmin(t: { teardown: (fn: () => Promise<void>) => void }, domain: string) {
  const tokens = new TokenMap();
  const app = (await createTestApp()).register(tokens.plugin()).register(featureFlagsPlugin({ openFeatureDomain: domain, changeDetection: "poll" }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const admin = tokens.user(`${domain}-admin`, { admin: true }).auth;
  return { http, admin };
}

test("creates of one flag key at once: one 201, the rest 409 DATABASE_DUPLICATE_KEY", async (t) => {
  const { http, admin } = await flagAdmin(t, "flag-burst-create");
  const key = `burst-${process.pid}`;
  const responses = await Promise.all(
    Array.from({ length: BURST }, () => request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key, name: "Burst", type: "boolean" })),
  );
  t.is(responses.filter((r) => r.status === 201).length, 1);
  t.true(responses.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.errors[0].code === "DATABASE_DUPLICATE_KEY"));
  t.is(await featureFlagModel().countDocuments({ key }), 1);
});

test("edits of one flag's rules and variants at once all apply", async (t) => {
  const { http, admin } = await flagAdmin(t, "flag-burst-edit");
  const created = await request(http)
    .post("/feature-flags/flags")
    .set("Authorization", admin)
    .send({ key: `edit-${process.pid}`, name: "Edit", type: "variant", variants: [{ key: "a", weight: 100 }] })
    .expect(201);
  const id = created.body.data.id as string;
  const responses = await Promise.all(
    Array.from({ length: BURST }, (_, index) =>
      request(http)
        .patch(`/feature-flags/flags/${id}`)
        .set("Authorization", admin)
        .send(index % 2 ? { rules: [{ field: "plan", operator: "eq", value: `plan-${index}`, variant: "a" }] } : { variants: [{ key: "a", weight: 50 }, { key: `b${index}`, weight: 50 }] }),
    ),
  );
  t.true(responses.every((r) => r.status === 200), responses.map((r) => r.status).join(","));
  const stored = await featureFlagModel().findById(id).lean();
  t.is(stored!.rules.length, 1);
  t.is(stored!.variants.length, 2);
});
