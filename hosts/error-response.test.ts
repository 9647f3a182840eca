import test from "ava";
import mongoose from "mongoose";
import request from "supertest";
import { HTTP_ROUTER } from "../contracts/http.js";
import { APIError } from "../kernel/api-error.js";
import { SvcError } from "../kernel/errors.js";
import { HttpErrors } from "../kernel/http-errors.js";
import type { SvcPlugin } from "../kernel/plugin.js";
import { ClientFaultWatch } from "../test/support/client-fault-watch.js";
import { toAPIError } from "./error-response.js";
import { createTestApp, stopTestDatabase } from "./testing.js";

test.after.always(() => stopTestDatabase());

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

/** What the `http-errors` package (used by express, body-parser and many middlewares) throws. */
function createHttpError(status: number, message = "http error"): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: status < 500 });
}

test("an error carrying a 4xx status (router, body parser, http-errors) keeps a coded 4xx; 5xx or no status stays 500", (t) => {
  const decode = Object.assign(new URIError("Failed to decode param '%zz'"), { status: 400, statusCode: 400 });
  const path = toAPIError(decode);
  t.deepEqual([path.status, path.code], [400, HttpErrors.MALFORMED_PATH.code]);
  t.false(JSON.stringify(path.toErrorObject()).includes("%zz"), "the answer never echoes the segment");

  t.deepEqual([toAPIError(createHttpError(400, "nope")).code, toAPIError({ statusCode: 400 }).code], [HttpErrors.BAD_REQUEST.code, HttpErrors.BAD_REQUEST.code]);
  t.is(toAPIError(createHttpError(403)).code, HttpErrors.FORBIDDEN.code);
  t.is(toAPIError(createHttpError(413)).code, HttpErrors.PAYLOAD_TOO_LARGE.code);
  // A 4xx with no meaning of its own here is still the client's: 400, never 500.
  t.deepEqual([toAPIError(createHttpError(422)).status, toAPIError(createHttpError(422)).code], [400, HttpErrors.BAD_REQUEST.code]);
  t.false(JSON.stringify(toAPIError(createHttpError(400, "internal detail")).toErrorObject()).includes("internal detail"));

  for (const serverSide of [createHttpError(502), { status: 500 }, { status: "400" }, { status: 400.5 }, new Error("no status")]) {
    t.deepEqual([toAPIError(serverSide).status, toAPIError(serverSide).code], [500, HttpErrors.INTERNAL.code]);
  }
});

/** Routes whose parameters the router percent-decodes. */
const paramRoutes: SvcPlugin = {
  name: "param-routes",
  start(ctx) {
    const router = ctx.resolve(HTTP_ROUTER);
    router.get("/things/:id", (req, res) => res.json({ data: req.params.id }));
    router.get("/files/*rest", (req, res) => res.json({ data: req.params.rest }));
  },
};

test("malformed percent-encoding in a path parameter is 400 HTTP_MALFORMED_PATH, a client fault", async (t) => {
  const watch = new ClientFaultWatch();
  const app = watch.attach(await createTestApp({ database: false, logger: watch.logger })).register(paramRoutes);
  const http = await app.build();
  t.teardown(() => app.stop());

  for (const path of ["/things/%zz", "/things/%E0%A4%A", "/things/%", "/things/a%C3", "/files/ok/%FF%FE", "/files/%E0%A4%A/x"]) {
    const response = await request(http).get(path).expect(400);
    t.is(response.body.errors[0].code, HttpErrors.MALFORMED_PATH.code, path);
    t.is(response.body.errors[0].status, "400");
    t.is(typeof response.body.requestId, "string");
  }
  watch.assertNoServerFault(t);
  // Well-formed encodings still reach the route decoded.
  t.is((await request(http).get("/things/caf%C3%A9").expect(200)).body.data, "café");
});

const Tagged = mongoose.models.ErrorMappingTagged ?? mongoose.model("ErrorMappingTagged", new mongoose.Schema({ tags: [String], note: String }, { strict: "throw" }));

/** A route of the app's own that loads a record, lets another write happen, then saves its copy. */
const racingRoutes: SvcPlugin = {
  name: "racing-routes",
  start(ctx) {
    const router = ctx.resolve(HTTP_ROUTER);
    router.post("/tagged/:id/:race", async (req, res) => {
      const doc = (await Tagged.findById(req.params.id).orFail())!;
      if (req.params.race === "retag") await Tagged.findById(req.params.id).orFail().then((other) => other.set("tags", ["theirs"]).save());
      else await Tagged.deleteOne({ _id: req.params.id });
      // An array write is version-checked (a lost race is a VersionError); a plain field is not (a deleted record is a DocumentNotFoundError).
      if (req.params.race === "retag") doc.set("tags", ["mine"]);
      else doc.set("note", "mine");
      await doc.save();
      res.json({ data: doc });
    });
  },
};

test("a save that lost to a concurrent write: mongoose's VersionError → 409 DATABASE_STALE_DOCUMENT, DocumentNotFoundError → 404 DATABASE_DOCUMENT_GONE, not 500", async (t) => {
  const watch = new ClientFaultWatch();
  const app = watch.attach(await createTestApp({ logger: watch.logger })).register(racingRoutes);
  const http = await app.build();
  t.teardown(() => app.stop());
  const retagged = await Tagged.create({ tags: ["a"] });
  const stale = await request(http).post(`/tagged/${retagged.id}/retag`).expect(409);
  t.is(stale.body.errors[0].code, "DATABASE_STALE_DOCUMENT");
  t.deepEqual((await Tagged.findById(retagged.id).lean())!.tags, ["theirs"], "the other write stands");
  const deleted = await Tagged.create({ tags: ["a"] });
  const gone = await request(http).post(`/tagged/${deleted.id}/delete`).expect(404);
  t.is(gone.body.errors[0].code, "DATABASE_DOCUMENT_GONE");
  t.is(await Tagged.countDocuments({ _id: deleted.id }), 0, "nothing written back");
  watch.assertNoServerFault(t);
});
