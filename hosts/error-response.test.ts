import test from "ava";
import mongoose from "mongoose";
import { APIError } from "../kernel/api-error.js";
import { SvcError } from "../kernel/errors.js";
import { toAPIError } from "./error-response.js";

const Thing = new mongoose.Schema(
  { name: { type: String, required: true }, count: Number, address: { city: { type: String, maxlength: 3 } } },
  { strict: "throw" },
);
const ThingModel = mongoose.models.ErrorMappingThing ?? mongoose.model("ErrorMappingThing", Thing);

test("mongoose validation errors → 400 with each field, pointing into the request body", async (t) => {
  const error = await new ThingModel({ address: { city: "Wellington" } }).validate().catch((caught: unknown) => caught);
  const api = toAPIError(error);
  t.is(api.status, 400);
  t.is(api.code, "VALIDATION_FAILED");
  const paths = (api.meta?.fields as Array<{ path: string }>).map((field) => field.path).sort();
  t.deepEqual(paths, ["address.city", "name"]);
  t.true(["/name", "/address/city"].includes(api.source!.pointer!));
});

test("cast and strict-mode errors → 400 with the field", (t) => {
  const cast = toAPIError(new mongoose.Error.CastError("Number", "abc", "count"));
  t.deepEqual([cast.status, cast.code, cast.source?.pointer], [400, "VALIDATION_CAST_FAILED", "/count"]);
  const strict = toAPIError(new mongoose.Error.StrictModeError("address.zip"));
  t.deepEqual([strict.status, strict.code, strict.source?.pointer], [400, "VALIDATION_UNKNOWN_FIELD", "/address/zip"]);
});

test("duplicate keys → 409 naming the fields, never the values", (t) => {
  const api = toAPIError({ code: 11000, keyPattern: { email: 1 }, keyValue: { email: "secret@example.com" } });
  t.deepEqual([api.status, api.code], [409, "DATABASE_DUPLICATE_KEY"]);
  t.deepEqual(api.meta, { fields: ["email"] });
  t.false(JSON.stringify(api.toErrorObject()).includes("secret@example.com"));
});

test("mongoose validation errors never quote the value and list at most 20 fields", async (t) => {
  const secret = "a-value-the-client-should-not-see-again";
  const long = await new ThingModel({ name: "ok", address: { city: secret } }).validate().catch((caught: unknown) => caught);
  const api = toAPIError(long);
  t.false(JSON.stringify(api.toErrorObject()).includes(secret));
  t.false(JSON.stringify(api.toErrorObject()).includes(secret.slice(0, 30)));

  const many = new mongoose.Error.ValidationError();
  for (let index = 0; index < 25; index++) many.addError(`field${index}`, new mongoose.Error.ValidatorError({ message: "Path `{PATH}` is required.", type: "required", path: `field${index}` }));
  const capped = toAPIError(many);
  t.is((capped.meta?.fields as unknown[]).length, 20);
  t.is(capped.meta?.moreErrors, 5);
});

test("a cast error names the type it wanted, not the value it got", (t) => {
  const cast = toAPIError(new mongoose.Error.CastError("Number", "not-a-number-secret", "count"));
  t.false(JSON.stringify(cast.toErrorObject()).includes("not-a-number-secret"));
});

test("a JSON body that parses but is not an object or array is a validation error, not malformed", (t) => {
  for (const body of ["null", " 42", '"text"', "true"]) {
    const api = toAPIError({ type: "entity.parse.failed", status: 400, body });
    t.deepEqual([api.status, api.code, api.source?.pointer], [400, "VALIDATION_INVALID_BODY", ""], body);
  }
  for (const body of ["nul", "{", "[1,", ""]) t.is(toAPIError({ type: "entity.parse.failed", status: 400, body }).code, "HTTP_MALFORMED_BODY", body);
});

test("body-parser errors keep their client status", (t) => {
  t.is(toAPIError({ type: "entity.too.large", status: 413 }).status, 413);
  t.is(toAPIError({ type: "entity.parse.failed", status: 400 }).code, "HTTP_MALFORMED_BODY");
  t.is(toAPIError({ type: "charset.unsupported", status: 415 }).status, 415);
});

test("APIErrors pass through; coded 4xx SvcErrors keep their status; anything else is an opaque 500", (t) => {
  const teapot = new APIError({ status: 418, title: "Teapot" });
  t.is(toAPIError(teapot), teapot);
  const coded = toAPIError(new SvcError("THING_GONE", "The thing is gone", { status: 410 }));
  t.deepEqual([coded.status, coded.code], [410, "THING_GONE"]);
  const opaque = toAPIError(new Error("connection string mongodb://user:pw@host"));
  t.deepEqual(opaque.toErrorObject(), { status: "500", title: "Internal server error", code: "HTTP_INTERNAL" });
  t.deepEqual(toAPIError("a thrown string").status, 500);
});
