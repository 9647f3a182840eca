import test from "ava";
import mongoose from "mongoose";
import { isAPIError } from "../../kernel/api-error.js";
import { RestErrors } from "./errors.js";
import { createListQueryParser, MAX_IN_VALUES } from "./list-query.js";
import { analyzeModel } from "./model-analysis.js";
import { DateOnly, registerDateOnlyType } from "./schema/date-only.js";
import { createdUpdatedPlugin } from "./schema/created-updated-plugin.js";
import { ValidationErrors } from "../validation/index.js";

registerDateOnlyType();
const schema = new mongoose.Schema({
  title: { type: String, description: "t" },
  done: { type: Boolean, description: "d" },
  priority: { type: Number, description: "p" },
  dueOn: { type: DateOnly, description: "due" },
  tags: { type: [String], description: "tags" },
  ownerId: { type: mongoose.Schema.Types.ObjectId, description: "owner" },
  secret: { type: String, select: false, description: "s" },
});
schema.plugin(createdUpdatedPlugin);
const Item = mongoose.model("ListQueryItem", schema);
const analysis = analyzeModel(Item, { permissions: {}, queryFields: ["title", "done", "priority", "dueOn", "tags", "ownerId"], maxLimit: 50 });
const parse = createListQueryParser(analysis);

function rejects(t: import("ava").ExecutionContext, query: Record<string, unknown>, code: string, parameter?: string) {
  const error = t.throws(() => parse(query));
  t.true(isAPIError(error));
  const apiError = error as import("../../kernel/api-error.js").APIError;
  t.is(apiError.code, code);
  t.is(apiError.status, 400);
  t.is(apiError.title, "Request validation failed");
  t.is(typeof apiError.meta?.validationErrors, "string");
  if (parameter) t.is(apiError.source?.parameter, parameter);
}

test("defaults: limit 100 (capped by maxLimit), page 1, newest first with an _id tiebreak", (t) => {
  const query = parse({});
  t.is(query.limit, 50);
  t.is(query.page, 1);
  t.is(query.skip, 0);
  t.deepEqual(query.sort, { created: -1, _id: 1 });
  t.deepEqual(query.filter, {});
});

test("limit, page and sort are parsed and bounded", (t) => {
  const query = parse({ limit: "20", page: "3", sort: "-priority,title" });
  t.is(query.limit, 20);
  t.is(query.skip, 40);
  t.deepEqual(query.sort, { priority: -1, title: 1, _id: 1 });
  for (const limit of ["0", "51", "-1", "abc", "1.5", "1e2", ""]) rejects(t, { limit }, ValidationErrors.INVALID_QUERY.code, "limit");
  for (const page of ["0", "x", "-2", "1000001"]) rejects(t, { page }, ValidationErrors.INVALID_QUERY.code, "page");
  rejects(t, { limit: ["1", "2"] }, ValidationErrors.INVALID_QUERY.code, "limit");
  rejects(t, { sort: "secret" }, ValidationErrors.INVALID_QUERY.code, "sort");
  rejects(t, { sort: "nope" }, ValidationErrors.INVALID_QUERY.code, "sort");
  rejects(t, { sort: "a,b,c,d,e,f" }, ValidationErrors.INVALID_QUERY.code, "sort");
  rejects(t, { sort: "title,-title" }, ValidationErrors.INVALID_QUERY.code, "sort");
  // The answer names what may be sorted by, never what was sent.
  const hostile = t.throws(() => parse({ sort: `-<script>${"x".repeat(5000)}` })) as import("../../kernel/api-error.js").APIError;
  t.false(JSON.stringify(hostile.toErrorObject()).includes("<script>"));
  t.true(JSON.stringify(hostile.toErrorObject()).length < 1000);
  t.regex(hostile.detail ?? "", /sort: names a field it cannot sort by/);
});

test("filters are cast with the schema types", (t) => {
  const owner = new mongoose.Types.ObjectId().toHexString();
  const query = parse({
    done: "true",
    "priority[$gte]": "2",
    "priority[$lt]": "5",
    "dueOn[$lte]": "2024-05-01T13:00:00Z",
    "tags[$in]": "a,b",
    ownerId: owner,
    "title[$exists]": "true",
  });
  t.is(query.filter.done, true);
  t.deepEqual(query.filter.priority, { $gte: 2, $lt: 5 });
  t.deepEqual(query.filter.dueOn, { $lte: new Date("2024-05-01T00:00:00Z") });
  t.deepEqual(query.filter.tags, { $in: ["a", "b"] });
  t.true(query.filter.ownerId instanceof mongoose.Types.ObjectId);
  t.deepEqual(query.filter.title, { $exists: true });
});

test("equality plus an operator on one field combine", (t) => {
  t.deepEqual(parse({ priority: "3", "priority[$ne]": "4" }).filter.priority, { $eq: 3, $ne: 4 });
});

test("$regex is literal text with optional anchors and an i flag", (t) => {
  const plain = parse({ "title[$regex]": "a.b*" }).filter.title as { $regex: RegExp };
  t.is(plain.$regex.source, "a\\.b\\*");
  const anchored = parse({ "title[$regex]": "^abc$" }).filter.title as { $regex: RegExp };
  t.is(anchored.$regex.source, "^abc$");
  const insensitive = parse({ "title[$regex]": "/Abc/i" }).filter.title as { $regex: RegExp };
  t.is(insensitive.$regex.flags, "i");
  t.true(insensitive.$regex.test("xxabcxx"));
  // Catastrophic-backtracking patterns are harmless literals.
  const evil = parse({ "title[$regex]": "(a+)+$" }).filter.title as { $regex: RegExp };
  t.false(evil.$regex.test("a".repeat(40) + "!"));
  rejects(t, { "title[$regex]": "x".repeat(101) }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { "priority[$regex]": "1" }, RestErrors.OPERATOR_NOT_ALLOWED.code);
  // Booleans do not order: refused, as the OpenAPI document leaves them out (not an empty list).
  for (const op of ["$gt", "$gte", "$lt", "$lte"]) rejects(t, { [`done[${op}]`]: "true" }, RestErrors.OPERATOR_NOT_ALLOWED.code);
});

test("fields outside queryFields and operators outside the allowlist are refused", (t) => {
  rejects(t, { secret: "x" }, RestErrors.QUERY_FIELD_NOT_ALLOWED.code);
  rejects(t, { created: "2024-01-01" }, RestErrors.QUERY_FIELD_NOT_ALLOWED.code);
  rejects(t, { populate: "ownerId" }, RestErrors.QUERY_FIELD_NOT_ALLOWED.code);
  for (const key of ["title[$where]", "title[$expr]", "title[$function]", "$where", "$or", "title[$options]", "title[gt]", "title[$gt][$lt]", "priority[$elemMatch]"]) {
    rejects(t, { [key]: "1" }, RestErrors.OPERATOR_NOT_ALLOWED.code);
  }
  rejects(t, { "title[foo]": "1" }, RestErrors.OPERATOR_NOT_ALLOWED.code);
  rejects(t, { "a b": "1" }, RestErrors.QUERY_FIELD_NOT_ALLOWED.code);
});

test("values that do not cast, empty values and oversized lists are refused", (t) => {
  rejects(t, { priority: "high" }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { priority: "" }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { ownerId: "not-an-id" }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { "dueOn[$gt]": "yesterday" }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { "done[$exists]": "maybe" }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { "tags[$in]": Array.from({ length: MAX_IN_VALUES + 1 }, (_, index) => `t${index}`) }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { "priority[$gt]": ["1", "2"] }, ValidationErrors.INVALID_QUERY.code);
  rejects(t, { priority: "1", "priority[$eq]": "2" }, ValidationErrors.INVALID_QUERY.code);
});

test("every problem is listed in meta.validationErrors", (t) => {
  const error = t.throws(() => parse({ limit: "0", secret: "x" })) as import("../../kernel/api-error.js").APIError;
  const issues = JSON.parse(String(error.meta?.validationErrors)) as Array<{ path: string; message: string }>;
  t.deepEqual(issues.map((issue) => issue.path), ["limit", "secret"]);
  t.regex(error.detail ?? "", /limit/);
});

test("router options naming unknown fields fail when the router is built", (t) => {
  t.throws(() => analyzeModel(Item, { permissions: {}, queryFields: ["nope"] }), { code: RestErrors.UNKNOWN_PATH.code });
  t.throws(() => analyzeModel(Item, { permissions: {}, queryFields: ["secret"] }), { code: RestErrors.INVALID_OPTION.code });
  t.throws(() => analyzeModel(Item, { permissions: {}, sort: "-nope" }), { code: RestErrors.UNKNOWN_PATH.code });
  t.throws(() => analyzeModel(Item, { permissions: {}, defaultLimit: 600 }), { code: RestErrors.INVALID_OPTION.code });
  t.throws(() => analyzeModel(Item, { permissions: {}, maxLimit: 0 }), { code: RestErrors.INVALID_OPTION.code });
  // A JavaScript caller can leave permissions out: refused when the router is built, not on its first request.
  t.throws(() => analyzeModel(Item, {} as never), { code: RestErrors.INVALID_OPTION.code, message: /permissions/ });
});

test("a NUL character in any filter value is refused, whatever the operator (BSON cannot carry it in a regex)", (t) => {
  for (const query of [
    { title: "a\u0000b" },
    { "title[$regex]": "a\u0000b" },
    { "title[$regex]": "/a\u0000b/i" },
    { "title[$ne]": "\u0000" },
    { "tags[$in]": "x,a\u0000b" },
    { "tags[$nin]": ["x", "\u0000"] },
    { "title[$exists]": "true\u0000" },
  ]) {
    const [key] = Object.keys(query);
    rejects(t, query, ValidationErrors.INVALID_QUERY.code, key);
  }
});

test("searchFields: ?search= is a case-insensitive literal match in any of them", (t) => {
  const searching = createListQueryParser(analyzeModel(Item, { permissions: {}, queryFields: ["done"], searchFields: ["title", "tags"] }));
  const query = searching({ search: " a.b* ", done: "true" });
  t.deepEqual(query.filter, { done: true, $or: [{ title: /a\.b\*/i }, { tags: /a\.b\*/i }] });
  for (const bad of [{ search: "" }, { search: "x".repeat(101) }, { search: ["a", "b"] }, { search: { $ne: "" } }, { search: "a\u0000" }]) {
    t.throws(() => searching(bad), { code: ValidationErrors.INVALID_QUERY.code }, JSON.stringify(bad));
  }
  // Without searchFields, `search` is an ordinary (here unknown) filter.
  rejects(t, { search: "x" }, RestErrors.QUERY_FIELD_NOT_ALLOWED.code);
});

test("searchFields must name text fields the client may see", (t) => {
  t.throws(() => analyzeModel(Item, { permissions: {}, searchFields: ["priority"] }), { code: RestErrors.INVALID_OPTION.code });
  t.throws(() => analyzeModel(Item, { permissions: {}, searchFields: ["secret"] }), { code: RestErrors.INVALID_OPTION.code });
  t.throws(() => analyzeModel(Item, { permissions: {}, searchFields: ["nope"] }), { code: RestErrors.UNKNOWN_PATH.code });
});
