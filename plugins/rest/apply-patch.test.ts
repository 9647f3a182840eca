import test from "ava";
import mongoose from "mongoose";
import { applyPatch } from "../../index.js";

// applyPatch is the PATCH of REST, synced updates and admin bulk updates; here on its own, as a
// user's custom route would call it (no database: it only changes the loaded document).
const Item = mongoose.model(
  "ApplyPatchItem",
  new mongoose.Schema({
    title: { type: String, required: true },
    done: { type: Boolean, default: false },
    dueOn: { type: Date },
    note: { type: String, default: null },
    tags: { type: [String] },
    place: { city: String, street: String },
  }),
);

function item() {
  return new Item({ title: "Write", done: true, dueOn: new Date("2026-01-02"), note: "n", tags: ["a"], place: { city: "Oslo", street: "Main" } });
}

test("the fields sent change and no other", (t) => {
  const doc = item();
  applyPatch(doc, { title: "Rewrite", tags: ["b", "c"] });
  t.like(doc.toObject(), { title: "Rewrite", done: true, note: "n", tags: ["b", "c"], place: { city: "Oslo", street: "Main" } });
});

test("null empties: back to the default, unset without one, null where the default is null", (t) => {
  const doc = item();
  applyPatch(doc, { done: null, dueOn: null, note: null, tags: null });
  const stored = doc.toObject();
  t.is(stored.done, false);
  t.false("dueOn" in stored);
  t.is(stored.note, null);
  t.deepEqual(stored.tags, []);
});

test("a required field given null keeps it for its validator to refuse", async (t) => {
  const doc = item();
  applyPatch(doc, { title: null });
  const error = await t.throwsAsync(doc.validate());
  t.regex(String(error), /title.*required/i);
});

test("a nested object sent replaces the stored one whole", (t) => {
  const doc = item();
  applyPatch(doc, { place: { city: "Bergen" } });
  t.deepEqual(doc.toObject().place, { city: "Bergen" });
});
