import test from "ava";
import mongoose from "mongoose";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { as, buildRestApp, spec } from "../../../test/support/rest-hosts.js";
import { Permissions } from "../permissions.js";
import { defaultPlugins } from "../schema/default-plugins.js";

// The PATCH schema is what the server validates with: an incomplete array item is one of the
// problems it reports, together with the others, not after them.

test.after.always(() => stopTestDatabase());

const part = new mongoose.Schema(
  { label: { type: String, required: true, description: "Label" }, qty: { type: Number, min: 0, default: 1, description: "Quantity" } },
  { _id: false },
);
const schema = new mongoose.Schema(
  { name: { type: String, required: true, description: "Name" }, score: { type: Number, max: 10, description: "Score" }, parts: { type: [part], description: "Parts" } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const PatchGadget = mongoose.model("PatchBodyGadget", schema);

test("a PATCH replacing an array with an incomplete item is refused with every problem at once", async (t) => {
  const app = await buildRestApp("SvcApp", [spec("/patch-gadgets", PatchGadget, { permissions: { create: [Permissions.IsAny], update: [Permissions.IsAny] } })]);
  t.teardown(() => app.stop());
  const { id } = (await as(app.http).post("/patch-gadgets", { name: "g", parts: [{ label: "wheel" }] }).expect(201)).body.data as { id: string };
  const refused = await as(app.http).patch(`/patch-gadgets/${id}`, { parts: [{ qty: 1 }], score: 99 }).expect(400);
  const problems = JSON.parse(refused.body.errors[0].meta.validationErrors as string) as Array<{ path: string }>;
  t.deepEqual(problems.map((problem) => problem.path).sort(), ["parts.0.label", "score"]);
  const stored = await PatchGadget.findById(id).lean();
  t.deepEqual(stored?.parts, [{ label: "wheel", qty: 1 }], "nothing was written");
  await as(app.http).patch(`/patch-gadgets/${id}`, { parts: [{ label: "bolt" }] }).expect(200);
});
