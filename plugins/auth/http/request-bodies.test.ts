import test from "ava";
import { Schema } from "mongoose";
import { profileFieldSchemas } from "../users/profile-field-schemas.js";
import type { APIError } from "../../../kernel/api-error.js";
import { ValidationErrors } from "../../validation/index.js";
import { credentialsBody, objectBody, profileBody, refreshTokenBody, signupBody } from "./request-bodies.js";

// A user schema's profile fields: a string and a free-form object (Mixed: any keys, so only the
// dotted-key and `$`-key refusals guard it).
const userSchema = new Schema({ name: { type: String, maxLength: 20 }, settings: { type: Schema.Types.Mixed } });
const fields = (...names: string[]) => profileFieldSchemas(userSchema, names);

function refusal(t: import("ava").ExecutionContext, check: () => unknown): APIError {
  const error = t.throws(check) as APIError;
  t.is(error.status, 400);
  t.is(error.title, "Request validation failed");
  t.is(typeof error.meta?.validationErrors, "string");
  return error;
}

test("credentials: the email is trimmed and lower-cased, the password kept as sent", (t) => {
  t.deepEqual(credentialsBody({ email: "  Ada@Example.COM ", password: " secret ", extra: 1 }), { email: "ada@example.com", password: " secret " });
});

test("credentials: a bad email or password points at the field", (t) => {
  for (const [body, pointer] of [
    [{ email: "not-an-email", password: "x" }, "/email"],
    [{ email: "a@b.co" }, "/password"],
    [{ email: "a@b.co", password: 12345678 }, "/password"],
    [{ email: "a@b.co", password: "" }, "/password"],
    [{ email: `${"a".repeat(250)}@b.co`, password: "x" }, "/email"],
    [{ email: "nul\u0000x@example.com", password: "x" }, "/email"],
    [{ email: "a@exa\u007fmple.com", password: "x" }, "/email"],
    [{ email: "a\u0085b@example.com", password: "x" }, "/email"],
  ] as const) {
    const error = refusal(t, () => credentialsBody(body));
    t.is(error.code, ValidationErrors.INVALID_BODY.code);
    t.is(error.source?.pointer, pointer);
  }
  for (const body of [undefined, null, "text", [1, 2], 42]) {
    t.is(refusal(t, () => credentialsBody(body)).code, ValidationErrors.INVALID_BODY.code);
  }
});

test("credentials: operators are refused before anything else", (t) => {
  const error = refusal(t, () => credentialsBody({ email: { $gt: "" }, password: { $ne: null } }));
  t.is(error.code, ValidationErrors.OPERATOR_IN_BODY.code);
  t.is(error.source?.pointer, "/email/$gt");
});

test("sign-up: profile fields pass, managed fields are read-only, others unknown", (t) => {
  const check = signupBody(fields("name", "settings"));
  t.deepEqual(check({ email: "a@b.co", password: "pw", name: "Ada", settings: { theme: "dark" } }), {
    email: "a@b.co",
    password: "pw",
    profile: { name: "Ada", settings: { theme: "dark" } },
  });
  for (const field of ["admin", "disabled", "deleted", "_id", "githubId", "federatedId", "passwordHash"]) {
    const error = refusal(t, () => check({ email: "a@b.co", password: "pw", [field]: true }));
    t.is(error.code, ValidationErrors.READ_ONLY_FIELD.code, field);
    t.is(error.source?.pointer, `/${field}`);
  }
  const unknown = refusal(t, () => check({ email: "a@b.co", password: "pw", nickname: "x" }));
  t.is(unknown.code, ValidationErrors.UNKNOWN_FIELD.code);
  t.is(unknown.source?.pointer, "/nickname");
  // The answer says which fields are profile fields (a field of the user model is not one until opened).
  t.regex(unknown.detail ?? "", /nickname: is not a profile field \(profile fields: name, settings\)/);
  t.regex(refusal(t, () => profileBody(fields())({ name: "Ada" })).detail ?? "", /name: is not a profile field \(this app opens none: authPlugin's profileFields\)/);
});

test("profile: $-keys and dotted keys at any depth are refused", (t) => {
  const check = profileBody(fields("name", "settings"));
  t.is(refusal(t, () => check({ name: { $gt: "" } })).code, ValidationErrors.OPERATOR_IN_BODY.code);
  t.is(refusal(t, () => check({ settings: { nested: [{ $where: "1" }] } })).code, ValidationErrors.OPERATOR_IN_BODY.code);
  const dotted = refusal(t, () => check({ settings: { deep: { "admin.flag": true } } }));
  t.is(dotted.code, ValidationErrors.OPERATOR_IN_BODY.code);
  t.is(dotted.source?.pointer, "/settings/deep");
  t.is(refusal(t, () => check({ "settings.theme": "dark" })).code, ValidationErrors.UNKNOWN_FIELD.code);
});

test("profile: each value must fit its field's schema on the user model, uncoerced", (t) => {
  const check = profileBody(fields("name", "settings"));
  for (const name of [123, { a: 1 }, ["Ada"], "x".repeat(21)]) {
    const error = refusal(t, () => check({ name }));
    t.is(error.code, ValidationErrors.INVALID_BODY.code, JSON.stringify(name));
    t.is(error.source?.pointer, "/name");
  }
  t.deepEqual(check({ name: "Ada", settings: { theme: "dark" } }), { name: "Ada", settings: { theme: "dark" } });
  const unknown = t.throws(() => fields("name", "nickname")) as { code?: string };
  t.is(unknown.code, "AUTH_PROFILE_FIELD_UNKNOWN");
});

test("profile: email and passwords are read-only", (t) => {
  const check = profileBody(fields("name"));
  for (const field of ["email", "password", "admin"]) {
    t.is(refusal(t, () => check({ name: "ok", [field]: "x" })).code, ValidationErrors.READ_ONLY_FIELD.code, field);
  }
  t.deepEqual(check({ name: "ok" }), { name: "ok" });
});

test("refresh and plain object bodies", (t) => {
  t.deepEqual(refreshTokenBody({ refreshToken: "abc" }), { refreshToken: "abc" });
  t.is(refusal(t, () => refreshTokenBody({ refreshToken: 1 })).source?.pointer, "/refreshToken");
  t.deepEqual(objectBody({ authCode: "x" }), { authCode: "x" });
  t.is(refusal(t, () => objectBody({ authCode: { $ne: null } })).code, ValidationErrors.OPERATOR_IN_BODY.code);
});

test("every auth body refuses a key containing NUL at any depth (BSON cannot write it)", (t) => {
  const signup = signupBody(fields("name", "settings"));
  for (const [check, body, pointer] of [
    [credentialsBody, { email: "a@b.co", password: "pw", "x\u0000": 1 }, "/x\u0000"],
    [signup, { email: "a@b.co", password: "pw", settings: { "theme\u0000": "dark" } }, "/settings/theme\u0000"],
    [signup, { email: "a@b.co", password: "pw", settings: { list: [{ "\u0000": 1 }] } }, "/settings/list/0/\u0000"],
    [profileBody(fields("settings")), { settings: { deep: { "a\u0000b": true } } }, "/settings/deep/a\u0000b"],
    [refreshTokenBody, { refreshToken: "abc", "\u0000": 1 }, "/\u0000"],
    [objectBody, { authCode: "x", meta: { "k\u0000": 1 } }, "/meta/k\u0000"],
  ] as const) {
    const error = refusal(t, () => (check as (body: unknown) => unknown)(body));
    t.is(error.code, ValidationErrors.OPERATOR_IN_BODY.code, pointer);
    t.is(error.source?.pointer, pointer);
  }
});
