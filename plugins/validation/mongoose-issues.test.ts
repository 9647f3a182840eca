import test from "ava";
import mongoose from "mongoose";
import { castMessage, mongooseValidationIssues } from "./mongoose-issues.js";

const schema = new mongoose.Schema({
  title: { type: String, required: true, trim: true, maxlength: 5 },
  code: { type: String, minlength: 3, match: /^[a-z]+$/ },
  status: { type: String, enum: ["open", "closed"] },
  size: { type: Number, min: 1, max: 9 },
  dueAt: { type: Date, min: new Date("2024-01-01T00:00:00.000Z") },
  even: { type: Number, validate: (value: number) => value % 2 === 0 },
  label: { type: String, maxlength: [3, "Labels are three letters at most"] },
  done: { type: Boolean },
  steps: [{ text: { type: String, required: true } }],
});
const Thing = mongoose.models.MongooseIssuesThing ?? mongoose.model("MongooseIssuesThing", schema);

async function issuesOf(fields: Record<string, unknown>) {
  const error = await new Thing(fields).validate().catch((caught: unknown) => caught);
  if (!(error instanceof mongoose.Error.ValidationError)) throw new Error("expected a ValidationError");
  return Object.fromEntries(mongooseValidationIssues(error).map((issue) => [issue.path, issue.message]));
}

test("mongoose's built-in validators answer in the request validator's words, never quoting the value", async (t) => {
  const secret = "SECRET-VALUE-THAT-IS-QUITE-LONG-INDEED";
  const issues = await issuesOf({ title: secret, code: "XYZ", status: "SECRET", size: 0, dueAt: "2020-01-01", even: 3, steps: [{}] });
  t.deepEqual(issues, {
    title: "must NOT have more than 5 characters",
    code: "must match pattern \"^[a-z]+$\"",
    status: 'must be one of "open", "closed"',
    size: "must be >= 1",
    dueAt: "must be >= 2024-01-01T00:00:00.000Z",
    even: "is invalid",
    "steps.0.text": "is required",
  });
  t.false(JSON.stringify(issues).includes("SECRET"));
  t.false(JSON.stringify(issues).includes("XYZ"));
  const short = await issuesOf({ title: "ok", code: "ab", size: 10 });
  t.deepEqual(short, { code: "must NOT have fewer than 3 characters", size: "must be <= 9" });
});

test("messages the schema's author wrote are kept", async (t) => {
  t.deepEqual(await issuesOf({ title: "ok", label: "abcd" }), { label: "Labels are three letters at most" });
});

test("values that do not cast say what the field takes, without the value", async (t) => {
  const issues = await issuesOf({ title: "ok", done: "perhaps", size: "many" });
  t.deepEqual(issues, { done: "must be a boolean", size: "must be a number" });
  t.is(castMessage("ObjectId"), "must be an id (24 hexadecimal characters)");
  t.is(castMessage("[Number]"), "must be an array whose items each must be a number");
  t.is(castMessage("Strange"), "must be a valid Strange");
});
